"""Real-world MindSpore sources for benchmarks and zoo tests: wheels from PyPI, unpacked once."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

CACHE = os.environ.get("GRAPHLINT_CORPUS_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "graphlint-corpus"))

# name -> (pip requirement, package folder inside the wheel)
PACKAGES = {
    "mindcv": ("mindcv==0.3.0", "mindcv"),
    "mindocr": ("mindocr==0.5.0", "mindocr"),
    "mindyolo": ("mindyolo==0.5.0", "mindyolo"),
    "mindnlp": ("mindnlp==0.3.1", "mindnlp"),
    "mindone": ("mindone==0.5.0", "mindone"),
}


def fetch(name: str) -> str:
    """Folder holding the package's sources (downloaded with pip, no dependencies, no install)."""
    requirement, folder = PACKAGES[name]
    target = os.path.join(CACHE, requirement.replace("==", "-"))
    package = os.path.join(target, folder)
    if os.path.isdir(package):
        return package
    wheels = os.path.join(CACHE, "wheels")
    os.makedirs(wheels, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                    "--dest", wheels, requirement], check=True)
    version = requirement.split("==")[1]
    wheel = next(os.path.join(wheels, w) for w in os.listdir(wheels)
                 if w.startswith(f"{name}-{version}-") and w.endswith(".whl"))
    partial = target + ".partial"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(partial)
    os.replace(partial, target)
    return package


def python_files(folder: str) -> list[str]:
    found = []
    for root, _, files in os.walk(folder):
        found.extend(os.path.join(root, f) for f in files if f.endswith(".py"))
    return sorted(found)


def count_lines(files) -> int:
    total = 0
    for path in files:
        with open(path, "rb") as handle:
            total += handle.read().count(b"\n")
    return total
