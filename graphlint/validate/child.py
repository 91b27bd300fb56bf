"""Child process that imports MindSpore and runs user or example code.

This module is the only place in graphlint that imports MindSpore. It is run as
``python -m graphlint.validate.child JOB.json RESULT.json`` by
:mod:`graphlint.validate.runner`, never imported by the linter.

A job names a module (source text or file), an entry point in it (a Cell
class, a function, or a factory), example inputs, and the runs to make:

* ``pynative``: PYNATIVE_MODE, the reference behaviour (for a ``@jit``
  function the undecorated function is called);
* ``graph``: GRAPH_MODE at MindSpore's default (lax) syntax level;
* ``strict``: ``mindspore.jit(entry, fullgraph=True)``, the level MindIR
  export needs;
* ``trace`` / ``bytecode``: the entry as the module jits it with that ``capture_mode`` (PYNATIVE context);
* ``mindir``: ``mindspore.export`` to MindIR, reload with ``mindspore.load``
  and run the loaded graph;
* ``fixed-<mode>``: one of the above on the job's ``fixed_source`` (a rewrite
  of the module), for comparing a fix with the original in one process;
* ``parts``: port mode's probe: the model whole and each of its parts alone, lax
  and STRICT (:mod:`graphlint.validate.parts`).

The result file is rewritten after every run, with the run in progress
marked, so the parent can tell which run a crash (a signal) happened in.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import random
import sys
import sysconfig
import tempfile
import time
import traceback
import types
from concurrent.futures import ThreadPoolExecutor

MAX_MESSAGE = 20000


def _write(path: str, result: dict) -> None:
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    os.replace(tmp, path)


def _load_module(job: dict, run_index: int) -> types.ModuleType:
    """Execute the job's module afresh, under its own name, so module state does not leak between runs and every
    way of reaching it (a ``"module:factory"``, another module importing it) reaches this run's text."""
    for entry in reversed(job.get("sys_path", [])):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    _forget_project_modules(job)
    _serve_sources(job, run_index)
    name = job.get("module_name") or "graphlint_example"
    path = job.get("path")
    if "source" in job:
        # MindSpore parses construct() from its source file, so the text must live in a file.
        path = _written(name, job["source"], run_index)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _written(name: str, text: str, run_index: int) -> str:
    path = os.path.join(os.getcwd(), f"{name.replace('.', '_')}_{run_index}.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _installed_folders() -> list:
    """Folders of the interpreter and its installed packages: their modules are loaded once per process."""
    folders = {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}  # (graphlint's own package)
    folders.update(path for key, path in sysconfig.get_paths().items() if key in ("stdlib", "platstdlib", "purelib",
                                                                                 "platlib"))
    return [os.path.join(os.path.abspath(folder), "") for folder in folders if folder]


def _forget_project_modules(job: dict) -> None:
    """Drop the modules of the user's project an earlier run of this process imported: a module that imports the
    entry's module (a factory's, a helper importing it back) is imported again and binds this run's text (the
    fixed one, in a ``fixed-`` run), not the text an earlier run loaded."""
    roots = [os.path.join(os.path.abspath(p), "") for p in job.get("sys_path", []) if p]
    roots.append(os.path.join(os.getcwd(), ""))  # (the texts runs write)
    installed = _installed_folders()
    for name, module in list(sys.modules.items()):
        filename = getattr(module, "__file__", None)
        if not filename or name == "__main__":
            continue
        filename = os.path.abspath(filename)
        if any(filename.startswith(folder) for folder in installed) and not filename.startswith(roots[-1]):
            continue
        if any(filename.startswith(root) for root in roots):
            del sys.modules[name]


class _Sources:
    """``sys.meta_path`` finder: the project's modules whose text the job carries (the fixed text of the other
    files of a ``--diff`` run) are imported from that text, not from the file on disk."""

    def __init__(self, files: dict):
        self.files = files  # module name -> (the written copy, the file it stands for)

    def find_spec(self, name, path=None, target=None):
        found = self.files.get(name)
        if found is None:
            return None
        written, original = found
        package = [os.path.dirname(original)] if os.path.basename(original) == "__init__.py" else None
        return importlib.util.spec_from_file_location(name, written, submodule_search_locations=package)


def _serve_sources(job: dict, run_index: int) -> None:
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, _Sources)]
    modules = job.get("modules") or {}
    if modules:
        files = {name: (_written(name, text, run_index), original) for name, (original, text) in modules.items()}
        sys.meta_path.insert(0, _Sources(files))


def _resolve(module: types.ModuleType, dotted: str):
    """``"mod:attr"`` or ``"attr"`` (in the job's module)."""
    if ":" in dotted:
        mod_name, attr = dotted.split(":", 1)
        target = importlib.import_module(mod_name)
    else:
        target, attr = module, dotted
    for part in attr.split("."):
        target = getattr(target, part)
    return target


def _make_inputs(job: dict, module: types.ModuleType) -> list:
    """Return a list of argument tuples, one per call."""
    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    import mindspore as ms
    import numpy as np
    from mindspore import Tensor

    calls = int(job.get("calls", 2))
    if job.get("inputs_factory"):
        made = _resolve(module, job["inputs_factory"])()
    elif job.get("inputs_specs") is not None:
        made = tuple(_tensor_from_spec(spec, index) for index, spec in enumerate(job["inputs_specs"]))
    else:
        namespace = {"np": np, "ms": ms, "mindspore": ms, "Tensor": Tensor}
        namespace.update(module.__dict__)
        made = eval(job.get("inputs") or "()", namespace)  # noqa: S307 - example inputs are code
    if isinstance(made, list):
        return [tuple(args) if isinstance(args, tuple) else (args,) for args in made]
    if not isinstance(made, tuple):
        made = (made,)
    return [made] * calls


from graphlint.validate.specs import DTYPES  # noqa: E402 - the spec table, shared with config checks


def _tensor_from_spec(spec: str, index: int):
    """``"float32[2,3]"`` -> a Tensor of seeded values; ``"int:5"`` / ``"float:0.5"`` -> Python scalars."""
    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    import numpy as np
    from mindspore import Tensor

    spec = spec.strip()
    if spec.startswith(("int:", "float:", "bool:")):
        kind, value = spec.split(":", 1)
        return {"int": int, "float": float, "bool": lambda v: v.lower() == "true"}[kind](value)
    dtype, _, shape_text = spec.partition("[")
    shape = tuple(int(dim) for dim in shape_text.rstrip("]").split(",") if dim.strip())
    rng = np.random.default_rng(1234 + index)
    np_dtype = DTYPES[dtype.strip()]
    if np_dtype.startswith("float"):
        array = rng.standard_normal(shape).astype(np_dtype)
    elif np_dtype == "bool_":
        array = rng.random(shape) > 0.5
    else:
        array = rng.integers(0, 10, size=shape).astype(np_dtype)
    return Tensor(array)


def _placeholder(spec: str):
    """``"float32[?,3]"`` -> Tensor(shape=[None, 3], dtype=float32); ``"float32[*]"`` -> dynamic rank."""
    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    import mindspore as ms
    from mindspore import Tensor

    dtype, _, shape_text = spec.strip().partition("[")
    dims = [d.strip() for d in shape_text.rstrip("]").split(",") if d.strip()]
    ms_dtype = getattr(ms, DTYPES[dtype.strip()])
    if dims == ["*"]:
        return Tensor(shape=None, dtype=ms_dtype)
    return Tensor(shape=[None if d in ("?", "None", "-1") else int(d) for d in dims], dtype=ms_dtype)


def encode(value, depth: int = 0):
    """Turn outputs into JSON: tensors become dtype, shape and values."""
    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    import numpy as np

    if depth > 20:
        return {"t": "object", "type": "too-deep"}
    if hasattr(value, "asnumpy") and callable(value.asnumpy):
        value = value.asnumpy()
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        flat = value.reshape(-1)
        if value.dtype.kind == "f":
            data = [_float(v) for v in flat.tolist()]
        elif value.dtype.kind in "iub":
            data = flat.tolist()
        else:
            data = [repr(v) for v in flat.tolist()]
        return {"t": "tensor", "dtype": str(value.dtype), "shape": list(value.shape), "data": data}
    if value is None or isinstance(value, (bool, int, str)):
        return {"t": type(value).__name__, "v": value}
    if isinstance(value, float):
        return {"t": "float", "v": _float(value)}
    if isinstance(value, (tuple, list)):
        return {"t": type(value).__name__, "items": [encode(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"t": "dict", "items": {str(k): encode(v, depth + 1) for k, v in value.items()}}
    return {"t": "object", "type": type(value).__name__}


def _float(v: float):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _entry_objects(job: dict, module: types.ModuleType):
    """Return (target, is_cell, plain_function) for the job's entry."""
    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    import mindspore as ms
    import numpy as np

    # Same seed before every construction: weights initialised at random are equal across runs/processes.
    seed = int(job.get("seed", 1234))
    random.seed(seed)
    np.random.seed(seed)
    ms.set_seed(seed)
    if job.get("factory"):
        target = _resolve(module, job["factory"])()
    else:
        target = _resolve(module, job.get("entry", "Net"))
        if isinstance(target, type) and issubclass(target, ms.nn.Cell):
            target = target(**job.get("init", {}))
    is_cell = isinstance(target, ms.nn.Cell)
    plain = target if is_cell else getattr(target, "__wrapped__", target)
    owner = getattr(target, "__self__", None)
    if isinstance(owner, ms.nn.Cell) and plain is not target:
        plain = types.MethodType(plain, owner)  # jit(net, ...) wraps the unbound construct
    return target, is_cell, plain


def _one_run(job: dict, mode: str, run_index: int) -> dict:
    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    import mindspore as ms

    if mode.startswith("fixed-"):  # the same run of the rewritten module (``fixed_source``), under its own name
        job, mode = {**job, "source": job["fixed_source"]}, mode[len("fixed-"):]
    module = _load_module(job, run_index)
    inputs = _make_inputs(job, module)
    pynative = getattr(ms, "PYNATIVE_MODE")
    # A failed `ms.export` leaves `jit_syntax_level` at STRICT (MindSpore 2.10): every later GRAPH_MODE compile
    # in this process would then be strict. Each run starts from the default level.
    ms.set_context(jit_syntax_level=ms.LAX)
    if mode == "pynative":
        ms.set_context(mode=pynative)
        target, is_cell, plain = _entry_objects(job, module)
        call = target if is_cell else plain
        traced_construct = getattr(type(target).construct, "__wrapped__", None) if is_cell else None
        if traced_construct is not None and {"trace", "bytecode"} & set(job.get("runs", ())):
            call = types.MethodType(traced_construct, target)  # (the reference runs the undecorated method)
    elif mode in ("graph", "strict"):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else pynative)  # (the entry is made in its mode too)
        target, is_cell, plain = _entry_objects(job, module)
        call = _compiled(mode, target, is_cell, plain)
    elif mode in ("trace", "bytecode"):
        ms.set_context(mode=pynative)
        target, is_cell, plain = _entry_objects(job, module)
        call = target  # (the module jits it: the capture the linter reads is the one run)
    elif mode == "compile":
        # Compile only, from placeholders: Tensor(shape=[None, 3], dtype=...) or dynamic rank.
        ms.set_context(mode=ms.GRAPH_MODE)
        target, is_cell, plain = _entry_objects(job, module)
        placeholders = [_placeholder(spec) for spec in job.get("placeholders", [])]
        if not is_cell:
            raise TypeError("compile-only validation needs a Cell entry")
        target.set_inputs(*placeholders)
        started = time.perf_counter()
        target.compile(*placeholders)
        return {"status": "ok", "outputs": [], "seconds": [time.perf_counter() - started]}
    elif mode == "mindir":
        ms.set_context(mode=ms.GRAPH_MODE)
        target, is_cell, plain = _entry_objects(job, module)
        path = os.path.join(os.getcwd(), "exported")
        ms.export(target, *inputs[0], file_name=path, file_format="MINDIR")
        call = ms.nn.GraphCell(ms.load(path + ".mindir"))
    else:
        raise ValueError(f"unknown run mode {mode!r}")

    drive = getattr(module, "drive", None)
    started = time.perf_counter()
    outputs = []
    times = []
    if callable(drive) and not job.get("ignore_drive"):
        outputs = list(drive(call, target, inputs))
        times.append(time.perf_counter() - started)
    else:
        watch = _Exercised(module.__file__, job.get("exercises", "")) if job.get("exercises") else None
        sys.setprofile(watch)
        try:
            for args in inputs:
                begin = time.perf_counter()
                outputs.append(call(*args))
                times.append(time.perf_counter() - begin)
        finally:
            sys.setprofile(None)
        if watch is not None:
            return {"status": "ok", "outputs": [encode(o) for o in outputs], "seconds": times, "exercised": watch.seen}
    return {"status": "ok", "outputs": [encode(o) for o in outputs], "seconds": times}


class _Exercised:
    """``sys.setprofile`` hook: whether a function of ``name`` (a class's methods, or a function) in ``filename``
    ran, for a rewrite validated through an entry that should call it."""

    def __init__(self, filename: str, name: str):
        self.filename, self.name, self.seen = filename, name, False

    def __call__(self, frame, event, arg):
        if event == "call" and not self.seen and frame.f_code.co_filename == self.filename:
            qualname = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
            self.seen = qualname == self.name or qualname.startswith(self.name + ".")


def _compiled(mode: str, target, is_cell: bool, plain):
    """The entry as ``graph`` (GRAPH_MODE: a Cell, an already-decorated @jit function, or ``jit(fn)``) or ``strict``
    (``jit(..., fullgraph=True)`` in PYNATIVE_MODE) compiles it; sets the context's mode to match."""
    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    import mindspore as ms

    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
        return target if is_cell or plain is not target else ms.jit(plain)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return ms.jit(target if is_cell else plain, fullgraph=True)


def _parts_run(job: dict, run_index: int, save=None) -> dict:
    """Port mode: record a PYNATIVE_MODE call, compile the whole entry (lax, then STRICT), then each part.

    The whole entry is compiled as the user compiles it: built afresh (the same seed, the same factory) on inputs
    made afresh, so nothing the PYNATIVE_MODE run changed (a scheduler's attributes its call set, a list it
    appended to) is read by the compile. What a whole compile returns is compared with the PYNATIVE_MODE run's."""
    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    import mindspore as ms

    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    from graphlint.validate import parts

    started = time.monotonic()
    module = _load_module(job, run_index)
    ms.set_context(jit_syntax_level=ms.LAX, mode=ms.PYNATIVE_MODE)
    inputs = _make_inputs(job, module)[0]
    target, is_cell, plain = _entry_objects(job, module)
    try:
        root = (job.get("sys_path") or [""])[0]
        recorder = parts.record(target if is_cell else plain, inputs, module.__file__, root)
    except BaseException as exc:  # the model itself fails: nothing to compile against
        return {"status": "ok", "file": module.__file__, "pynative": _error_record(exc), "whole": {}, "parts": []}
    def compile_whole(level: str, text: str, stand_ins: dict, number: int) -> dict:
        ms.set_context(jit_syntax_level=ms.LAX, mode=ms.GRAPH_MODE if level == "graph" else ms.PYNATIVE_MODE)
        captured = CapturedStderr()
        compiled_file = ""
        try:
            with captured:
                scratch = _load_module({**job, "source": text}, run_index * 1000 + number)
                compiled_file = scratch.__file__
                vars(scratch).update(stand_ins)
                fresh, fresh_is_cell, fresh_plain = _entry_objects(job, scratch)
                output = _compiled(level, fresh, fresh_is_cell, fresh_plain)(*_make_inputs(job, scratch)[0])
            return {"status": "ok", "outputs": [encode(output)], "file": compiled_file}
        except BaseException as exc:
            return {**_error_record(exc), "stderr": captured.text, "file": compiled_file}

    entry_function = type(target).construct if is_cell else plain
    # (what the parent waits for, less a margin; the rounds take half of it at most, the parts the rest)
    budget = float(job.get("seconds", 1e9))
    deadline = started + budget
    reference = {"status": "ok", "outputs": [encode(recorder.result)]}
    called = sorted({getattr(code, "co_qualname", code.co_name) for code in recorder.counts
                     if code.co_filename == module.__file__})

    def progress(whole_so_far: dict) -> None:
        if save is not None:  # (what the PYNATIVE_MODE run called is kept too: a report cut short names its errors)
            save({"status": "ok", "file": module.__file__, "pynative": reference, "whole": whole_so_far, "parts": [],
                  "unaided_stopped": False, "called": called})

    whole = parts.compile_rounds(job["source"], recorder.calls_in(module.__file__, entry_function), compile_whole,
                                 frozenset(job.get("reported", ())), min(parts.ROUNDS_SECONDS, budget / 2), progress,
                                 job.get("predicted"))
    # The parts below are the recorded model's, of the first text: a module that imported a scratch copy (a
    # factory's) is imported again, and binds the first.
    _forget_project_modules(job)
    sys.modules[module.__name__] = module
    _serve_sources(job, run_index)
    if all(rounds["rounds"] and rounds["rounds"][-1].get("status") == "ok" and not rounds["rounds"][-1]["cuts"]
           for rounds in whole.values()):
        # (the model compiles as it is, at both levels: every part was compiled in it)
        return {"status": "ok", "file": module.__file__, "pynative": reference, "whole": whole, "parts": [],
                "unaided_stopped": False, "called": called}
    found = parts.compile_parts(recorder, _error_record, CapturedStderr, deadline)

    def fresh_root():
        return _entry_objects(job, module)[0]

    stopped = parts.compile_unaided(recorder, target, fresh_root, found, _error_record, CapturedStderr, deadline) \
        or time.monotonic() > deadline
    return {"status": "ok", "file": module.__file__, "pynative": reference, "whole": whole, "parts": found,
            "unaided_stopped": stopped, "called": called}


class CapturedStderr:
    """File descriptor 2 into a file while a compile runs: where an error is in the user's code (MindSpore's `# 0 In
    file ...` lines) is often written there by its C++ side, not put in the exception."""

    def __init__(self):
        self.text = ""

    def __enter__(self):
        sys.stderr.flush()
        self._file = tempfile.TemporaryFile()
        self._saved = os.dup(2)
        os.dup2(self._file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._file.seek(0)
        self.text = self._file.read()[-MAX_MESSAGE:].decode("utf-8", "replace")
        self._file.close()
        return False


def _error_record(exc: BaseException) -> dict:
    message = str(exc)
    # (a line of dashes or carets under a quoted line is layout, never the message)
    lines = [line for line in message.splitlines() if any(char.isalnum() for char in line)]
    return {
        "status": "error",
        "error_type": type(exc).__name__,
        "summary": lines[0][:500] if lines else type(exc).__name__,
        "message": message[:MAX_MESSAGE],
        "traceback": "".join(traceback.format_exception(exc))[-4000:],
    }


def trace_left_open() -> bool:
    """A traced call raised and MindSpore's trace is still open: later traced calls of this process would run
    eagerly (``jit_trace`` runs the function untraced while a jit context is set)."""
    # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
    from mindspore.graph.jit_context import jit_context

    return jit_context() is not None


def _in_thread(function, *args):
    """``function(*args)`` in a thread of its own: MindSpore's trace reads the source line of every caller frame
    and fails on a frame without one ("<frozen runpy>", under ``python -m``)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args).result()


def main(argv: list[str]) -> int:
    job_path, result_path = argv[1], argv[2]
    with open(job_path, encoding="utf-8") as handle:
        job = json.load(handle)
    result: dict = {"runs": {}, "in_progress": None}
    _write(result_path, result)
    try:
        # imported here: MindSpore and NumPy load in the child process only (main() imports MindSpore first, unbilled)
        import mindspore  # noqa: F401 - imported first so its cost is not billed to a run
    except BaseException as exc:  # pragma: no cover - environment problem
        result["import_error"] = _error_record(exc)
        _write(result_path, result)
        return 0
    for index, mode in enumerate(job.get("runs", ["pynative", "graph"])):
        result["in_progress"] = mode
        _write(result_path, result)
        try:
            if mode == "trace":
                result["runs"][mode] = _in_thread(_one_run, job, mode, index)
            elif mode == "parts":
                def save(record: dict) -> None:
                    result["partial"] = record
                    _write(result_path, result)

                result["runs"][mode] = _parts_run(job, index, save)
                result.pop("partial", None)
            else:
                result["runs"][mode] = _one_run(job, mode, index)
        except BaseException as exc:  # user code may raise anything, SystemExit included
            result["runs"][mode] = _error_record(exc)
        result["in_progress"] = None
        _write(result_path, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
