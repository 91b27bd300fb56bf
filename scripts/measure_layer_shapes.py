#!/usr/bin/env python3
"""Measure which of MindSpore's nn layers give a result of their input's shape.

Each public ``mindspore.nn`` Cell class is built with the first construction that works among ``()``, a channel
count (``(3,)``: ``BatchNorm2d(3)``), a normalised shape (``((5,),)``: ``LayerNorm((5,))``) and groups of channels
(``(1, 3)``: ``GroupNorm(1, 3)``), put in eval mode and
called on float32 inputs of ranks 2, 3 and 4 whose second axis is 3 and last axis is 5. A layer keeps its input's
shape when every input it accepts (one at least) gives a Tensor of exactly that shape, and its
documentation does not give its output a shape of its own (``H_{out}``: pooling with a default window of 1 keeps
the shape only for that construction). The constructors of the convolution, pooling, Dense and Flatten layers
(their parameters and defaults) are recorded beside, for the shapes their constructions give. The result is ``graphlint/analysis/generated/layer_shapes.py``; the suite
compiles a sample of it in GRAPH_MODE::

    .venv/bin/python scripts/measure_layer_shapes.py            # measure and write
    .venv/bin/python scripts/measure_layer_shapes.py --dry-run  # measure and print only
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from mindspore_tables import outputs_section, render_module  # noqa: E402

OUT = os.path.join(ROOT, "graphlint", "analysis", "generated", "layer_shapes.py")
SHAPES = ((2, 3, 5), (2, 3, 4, 5), (2, 3))
CONSTRUCTIONS = ((), (3,), ((5,),), (1, 3))
# a documented output shape with dimensions of its own (pooling, convolution, padding ...)
OWN_OUTPUT_SHAPE = re.compile(r"_\{?out\}?|_\{?\\?text\{?out")


def keeps_shape(ms, np, cls) -> tuple[bool, str]:
    """(whether ``cls`` keeps its input's shape, the construction measured)."""
    for arguments in CONSTRUCTIONS:
        try:
            layer = cls(*arguments)
            layer.set_train(False)
        except Exception:  # noqa: BLE001 - a construction the class refuses: try the next
            continue
        accepted = 0
        for shape in SHAPES:
            x = ms.Tensor(np.random.RandomState(0).rand(*shape).astype(np.float32))
            try:
                result = layer(x)
                given = tuple(result.shape) if isinstance(result, ms.Tensor) else None
                if given is not None:
                    result.asnumpy()  # (PYNATIVE_MODE runs lazily: a missing kernel shows here)
            except Exception:  # noqa: BLE001 - an input rank the layer refuses
                continue
            if given != shape:
                return False, repr(arguments)
            accepted += 1
        if accepted:
            return True, repr(arguments)
    return False, ""


# layers whose result's shape graphlint computes from their construction (shape_algebra's windows, Dense's
# last axis, Flatten's axes): their constructors' parameters and literal defaults are read from MindSpore
SHAPED_BY_CONSTRUCTION = ("Conv1d", "Conv2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "Dense", "Flatten")


def constructor_signatures(ms) -> dict:
    """``{layer: ((parameter, default or None), ...)}`` for SHAPED_BY_CONSTRUCTION (defaults that are not
    literals, such as a dtype, are None)."""
    found = {}
    for name in SHAPED_BY_CONSTRUCTION:
        parameters = list(inspect.signature(getattr(ms.nn, name).__init__).parameters.values())[1:]
        found[name] = tuple((p.name, p.default if isinstance(p.default, (int, str, tuple, bool, float))
                             and p.default is not inspect.Parameter.empty else None) for p in parameters)
    return found


def measure() -> tuple[str, dict]:
    os.environ.setdefault("GLOG_v", "3")
    import mindspore as ms
    import numpy as np

    ms.set_context(mode=ms.PYNATIVE_MODE)
    kept = {}
    for name in sorted(dir(ms.nn)):
        cls = getattr(ms.nn, name)
        if name.startswith("_") or not (inspect.isclass(cls) and issubclass(cls, ms.nn.Cell)) or cls is ms.nn.Cell:
            continue
        if OWN_OUTPUT_SHAPE.search(outputs_section(cls.__doc__) or ""):
            continue
        keeps, construction = keeps_shape(ms, np, cls)
        if keeps:
            kept[name] = construction
    return ms.__version__, kept


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    version, kept = measure()
    import mindspore as ms

    text = render_module(
        version, "MindSpore's nn layers that keep their input's shape (measured); constructors of shape-giving ones.",
        [("SHAPE_KEEPING_LAYERS", kept,
          "mindspore.nn layer -> the construction measured: called on float32 inputs of ranks 2-4, it returns a\n"
          "Tensor of the input's shape (`self.act(x)`, `self.norm(x)`, `self.drop(x)` are shaped like `x`)"),
         ("CONSTRUCTOR_SIGNATURES", constructor_signatures(ms),
          "mindspore.nn layer -> its constructor's parameters, in order, with their literal defaults (None for\n"
          "none): a convolution's or pooling's window, Dense's output size, Flatten's axes")],
        script="scripts/measure_layer_shapes.py")
    if args.dry_run:
        print(text)
        return 0
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)}: {len(kept)} layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
