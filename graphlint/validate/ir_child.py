"""Child process of the IR oracle: compile programs in GRAPH_MODE with MindSpore's type-inference IR dumped.

``python -m graphlint.validate.ir_child JOB.json RESULT.json``. The job is ``{"programs": [...]}``; each program
is a job of :mod:`graphlint.validate.child` (``path``, ``entry`` or ``factory``, ``inputs``, ``init``,
``sys_path``) or ``{"call": "test_x", "path": ...}`` (a function that builds and runs its own graphs, called
once under GRAPH_MODE: a unit test), plus ``dump``: the folder its IR goes to. The parent sets
``MS_DEV_SAVE_GRAPHS=1`` and ``MS_DEV_DUMP_IR_PASSES=type_inference``; MindSpore reads the dump folder at every
compile, so one process serves every program. The result file is rewritten after each program.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys


def _run(program: dict, position: int) -> dict:
    # imported here: MindSpore loads in the child process only
    import mindspore as ms

    from graphlint.validate.child import _error_record, _one_run

    os.makedirs(program["dump"], exist_ok=True)
    os.environ["MS_DEV_SAVE_GRAPHS_PATH"] = program["dump"]
    try:
        if "call" in program:
            for entry in reversed(program.get("sys_path", [])):
                if entry not in sys.path:
                    sys.path.insert(0, entry)
            ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX)
            name = program.get("module_name") or f"graphlint_oracle_{position}"
            spec = importlib.util.spec_from_file_location(name, program["path"])
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            getattr(module, program["call"])()
            return {"status": "ok"}
        _one_run({"calls": 1, **program}, "graph", 0)
        return {"status": "ok"}
    except BaseException as exc:  # noqa: BLE001 - user code may raise anything
        return {"status": "error", "summary": _error_record(exc)["summary"][:300]}


def main(argv: list[str]) -> int:
    job_path, result_path = argv[1], argv[2]
    with open(job_path, encoding="utf-8") as handle:
        programs = json.load(handle)["programs"]
    results: list = []
    for position, program in enumerate(programs):
        results.append(_run(program, position))
        with open(result_path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(results, handle)
        os.replace(result_path + ".tmp", result_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
