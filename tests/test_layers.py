"""The layer contracts of pyproject.toml ([tool.importlinter]) hold: `lint-imports` passes on graphlint."""

import os
import subprocess
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_layer_contracts_hold():
    lint_imports = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    done = subprocess.run([lint_imports, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "Contracts: 4 kept, 0 broken." in done.stdout


def test_a_session_that_calls_the_run_layer_breaks_the_layers(tmp_path):
    """The layers are not vacuous: in a stand-in package whose session imports the run layer (what
    session.lint_files did before the run layer existed), the layers contract of pyproject.toml is broken."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        layers = next(c for c in tomllib.load(handle)["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    listed = ", ".join(f'"{layer}"' for layer in layers["layers"])
    config = tmp_path / "contracts.toml"
    config.write_text(f'[tool.importlinter]\nroot_package = "graphlint"\n\n[[tool.importlinter.contracts]]\n'
                      f'name = "layers"\ntype = "layers"\ncontainers = ["graphlint"]\nlayers = [{listed}]\n',
                      encoding="utf-8")
    probe = tmp_path / "probe"
    (probe / "graphlint").mkdir(parents=True)
    for layer in layers["layers"]:
        for name in layer.replace(":", "|").split("|"):
            (probe / "graphlint" / f"{name.strip()}.py").write_text("", encoding="utf-8")
    (probe / "graphlint" / "__init__.py").write_text("", encoding="utf-8")
    (probe / "graphlint" / "session.py").write_text("import graphlint.run\n", encoding="utf-8")
    lint_imports = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    done = subprocess.run([lint_imports, "--no-cache", str(config)], cwd=probe, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(probe)}, timeout=300)
    assert done.returncode == 1
    assert "graphlint.session is not allowed to import graphlint.run" in done.stdout
