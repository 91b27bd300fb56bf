#!/usr/bin/env python3
"""Generate the PyTorch-style call forms that scripts/measure_torch_habits.py measures in graph code.

The forms come from sources, each form naming its own:

- MindSpore's "PyTorch and MindSpore API mapping" pages (the mindspore-ai/docs repository, brought here with the
  search tool's ``fetch``; its git directory is ``--docs``): every ``torch.Tensor.X``, ``torch.X`` and
  ``torch.nn.functional.X`` row whose MindSpore API exists in the installed MindSpore, from the pages of the
  branches in ``MAPPING_BRANCHES`` (master maps torch functions to ``mint``; r2.4.10 has the longer Tensor list);
- the installed MindSpore's own signatures of those APIs: a Tensor method's docstring opens with its PyTorch-style
  overload (``split(split_size, dim=0) -> tuple(Tensor)``; its ``.. method::`` lines give MindSpore's own
  overloads, the candidate spellings), ``mint`` functions have Python signatures;
- the nn containers (``CellList``, ``SequentialCell``, ``CellDict``) and the Cell methods PyTorch's Module shares by
  name, the builtins with keyword forms and every public ``list`` / ``dict`` / ``tuple`` / ``str`` method
  (``dir()`` and ``inspect.signature`` of the running Python).

PyTorch's own repository is too large to bring here (4 GB); the torch names are the mapping pages' torch column.
The fetched pages are read with ``git show`` and never copied: only the derived list is written, to
``scripts/data/torch_forms.json``::

    .venv/bin/python scripts/torch_forms.py --docs /work/.mirror/mindspore-ai+docs/repo
"""

from __future__ import annotations

import argparse
import builtins
import inspect
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "scripts", "data", "torch_forms.json")
TENSOR_DOCS = os.path.join(ROOT, "scripts", "data", "torch_tensor_docs.json")
MAPPING_PAGE = "docs/mindspore/source_en/note/api_mapping/pytorch_api_mapping.md"
MAPPING_BRANCHES = ("master", "r2.4.10")
ROW = re.compile(r"^\|\s*\[(torch[\w.]*)\][^|]*\|\s*\[(mindspore[\w.]*)\][^|]*\|(.*)\|\s*$")

# x is a float32 Tensor of shape (2, 3, 4) (24 elements); the probe reshapes it to the rank a form is run at.
SHAPES = {1: (24,), 2: (6, 4), 3: (2, 3, 4), 4: (2, 3, 2, 2)}
# The forms PyTorch-ported decoders use most (issue 42), measured first, then the most used Tensor methods.
DECODER_HABITS = ("transpose", "split", "view", "permute", "size", "max", "min", "chunk", "softmax", "masked_fill",
                  "unsqueeze", "squeeze", "flatten", "contiguous", "reshape", "expand", "repeat", "mean", "sum",
                  "cat", "stack", "argmax", "topk", "matmul", "float", "type_as", "to", "cumsum", "gather",
                  "tril", "triu", "norm", "var", "std", "clamp", "sort", "argsort", "narrow", "unbind", "sigmoid",
                  "tanh", "exp", "pow", "sqrt", "rsqrt", "mul", "add", "sub", "div", "bmm", "masked_select", "where",
                  "any", "all", "prod", "logsumexp", "log_softmax", "index_select", "roll", "flip", "numel", "dim")


def git_show(docs: str, branch: str, path: str) -> str:
    done = subprocess.run(["git", "--git-dir", docs, "show", f"{branch}:{path}"], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"cannot read {branch}:{path} in {docs}: {done.stderr.strip()}")
    return done.stdout


def mapping_rows(docs: str) -> list:
    """(torch name, MindSpore name, note, source) for every row of the mapping pages of MAPPING_BRANCHES."""
    rows = []
    for branch in MAPPING_BRANCHES:
        for number, line in enumerate(git_show(docs, branch, MAPPING_PAGE).splitlines(), 1):
            match = ROW.match(line.strip())
            if match:
                note = re.sub(r"\(http[^)]*\)|[\[\]]", "", match.group(3)).strip()
                source = f"mindspore-ai/docs {branch}:{MAPPING_PAGE}:{number}"
                rows.append((match.group(1), match.group(2), note, source))
    return rows


# -- signatures ------------------------------------------------------------------------------------------------
MINDSPORE_ONLY_PARAMETERS = re.compile(r"\b(axis|axes|keepdims|initial|where|return_indices)\b")


def tensor_overloads(name: str) -> tuple:
    """([PyTorch-style parameter texts], [MindSpore-style overload parameter texts]) from the docstring: its
    first line and its ``.. method::`` lines; an overload with MindSpore's own parameter names (axis, keepdims)
    is MindSpore's spelling, the others are PyTorch's."""
    import mindspore

    doc = getattr(getattr(mindspore.Tensor, name, None), "__doc__", None) or ""
    first = re.findall(r"^\s*" + re.escape(name) + r"\((.*?)\)\s*->", doc, re.M)[:1]
    overloads = first + re.findall(r"^\.\. method:: Tensor\." + re.escape(name) + r"\((.*?)\)", doc, re.M)
    if not overloads:
        try:
            params = list(inspect.signature(getattr(mindspore.Tensor, name)).parameters.values())[1:]
        except (TypeError, ValueError):
            return [], []
        overloads = [", ".join(str(p) for p in params)]
    torch_style = [text for text in overloads if not MINDSPORE_ONLY_PARAMETERS.search(text)]
    mindspore_style = [text for text in overloads if MINDSPORE_ONLY_PARAMETERS.search(text)]
    return torch_style or overloads[:1], mindspore_style


def parameters(text: str) -> list:
    """``split_size, dim=0, *, dtype=None`` -> [("split_size", None), ("dim", "0")]; keyword-only ones dropped."""
    found = []
    for part in (p.strip() for p in text.split(",")):
        if not part or part in ("*", "/", "self") or part.startswith("**"):
            if part == "*":
                break
            continue
        name, _, default = part.partition("=")
        found.append((name.split(":")[0].strip(), default.strip() or None))
    return found


# A value for each parameter a torch-style call needs, by name, given the rank's shape (the probe's Tensor is `t`).
# Dims are handled apart. A value that does not suit a form makes PYNATIVE_MODE fail too: such a form is measured
# as "pynative fails", never as a habit.
def argument_value(name: str, shape: tuple, method: str = ""):
    last = shape[-1]
    if name == "index" and method.rstrip("_") in ONE_DIMENSIONAL_INDEX:
        return "Tensor([0, 1], ms.int64)"
    if name == "index" and method == "select":  # one position along the dim
        return "0"
    values = {
        "other": "t * 0.5", "input2": "t * 0.5", "tensor": "t * 0.5", "tensor1": "t * 0.5", "tensor2": "t + 1",
        "exponent": "2", "value": "0.5", "alpha": "1", "split_size": str(max(1, last // 2)),
        "split_size_or_sections": str(max(1, last // 2)), "chunks": "2", "sections": "2", "k": "1",
        "mask": "t > 0", "min": "-1.0", "max": "1.0", "diagonal": "0", "start_dim": "0", "end_dim": "-1",
        "p": "2", "q": "0.5", "weight": "0.5", "end": "t + 1", "start": "0", "length": "1", "shifts": "1",
        "decimals": "0", "descending": "True", "largest": "True", "sorted": "True", "stable": "False",
        "unbiased": "True", "correction": "1", "threshold": "0.5", "lambd": "0.5",
        # indices of t's own shape (gather, scatter, take_along_dim), and what they take or write
        # one position per slice along the (last) dim: no two writes of a scatter meet (PyTorch leaves their
        # order undefined)
        "index": "(t * 0).astype(ms.int64)[..., :1]", "indices": "(t * 0).astype(ms.int64)", "src": "t * 0.5",
        "source": "t * 0.5", "values": "t * 0.5",
        # matrix products against t's own matrices
        "mat2": "t.swapaxes(-1, -2)", "mat": "t.swapaxes(-1, -2)", "mat1": "t", "batch1": "t",
        "batch2": "t.swapaxes(-1, -2)", "vec": "t[0]", "vec1": "t[0]", "vec2": "t[0]", "x2": "t",
        "size": repr(tuple(shape)), "shape": repr(tuple(shape)), "fill_value": "0.5", "repeats": "2",
        "dims": "(0, 1)", "condition": "t > 0", "y": "t * 0.5", "kernel_size": "2", "output_size": "2",
        "target": "t * 0.5", "targets": "t * 0.5", "labels": "t * 0.5", "indices_or_sections": "2", "steps": "3",
        "num_samples": "2", "axis0": "0", "axis1": "1", "destination": "0", "col": "1", "norm_type": "2.0",
        "maxnorm": "1.0", "angle": "0.5", "pad": "(1, 1)", "upscale_factor": "2", "downscale_factor": "2",
        "divisor": "2", "step": "1", "tau": "1.0", "rate": "0.5",
        "running_mean": f"ops.zeros(({shape[1] if len(shape) > 1 else 1},), ms.float32)",
        "running_var": f"ops.ones(({shape[1] if len(shape) > 1 else 1},), ms.float32)",
        "grid": "ops.zeros((1, 2, 2, 2), ms.float32)", "boundaries": "Tensor([0.0, 1.0], ms.float32)",
        "LU_data": "t", "LU_pivots": f"ops.ones(({min(shape[-2:]) if len(shape) > 1 else 1},), ms.int32)",
        "n": "2", "positive": "t * 0.5", "negative": "t + 1", "log_probs": "t", "input_lengths": "(2,)",
        "target_lengths": "(1,)", "A": "t", "b": "t",
    }
    return values.get(name)


# Methods whose `index` names entries along one dim (a 1-D index), not an index per element.
ONE_DIMENSIONAL_INDEX = frozenset({"index_select", "index_add", "index_copy", "index_fill"})
# Methods whose `*sizes` are repeat counts (PyTorch's repeat tiles), not a shape with -1.
REPEAT_COUNTS = frozenset({"repeat", "tile"})
# PyTorch's Tensor attributes and methods that MindSpore's Tensor has without a signature to read (properties, or
# methods documented without one): their forms as PyTorch code writes them, at rank 2.
SIGNATURELESS_FORMS = {
    "T": ("t.T",), "mT": ("t.mT",), "H": ("t.H",), "mH": ("t.mH",), "ndim": ("t.ndim",), "shape": ("t.shape",),
    "size": ("t.size()", "t.size(1)", "t.size(-1)", "t.size(dim=1)"), "dim": ("t.dim()",), "t": ("t.t()",),
    "is_signed": ("t.is_signed()",), "is_complex": ("t.is_complex()",), "device": ("t.device",),
    "is_pinned": ("t.is_pinned()",), "pin_memory": ("t.pin_memory()",), "requires_grad_": ("t.requires_grad_()",),
    "storage": ("t.storage()",),
}


def dim_sets(params: list, rank: int):
    """The dim arguments a form passes at this rank: the last axis positional, as dim=, negative."""
    names = [n for n, _ in params]
    if "dim0" in names and "dim1" in names:
        # which two dims are given decides what graph mode does (a matrix's transpose(0, 1) vs (1, 0))
        pairs = [(0, 1), (1, 0)] + ([(1, 2)] if rank >= 3 else [])
        return [("pair", pair) for pair in pairs]
    if "dim" in names or "axis" in names:
        return [("positional", rank - 1), ("keyword", rank - 1), ("negative", -1)]
    return []


def call_forms(name: str, params: list, rank: int) -> list:
    """[(variant, argument text)] of the torch-style calls of a method with these parameters at this rank."""
    shape = SHAPES[rank]
    required, keyword_dim = [], "dim" if any(n == "dim" for n, _ in params) else "axis"
    named = []  # (name, value) of the required ones, for a call that passes them by keyword after dim=
    for pname, default in params:
        if default is not None or pname in ("dim", "axis", "dim0", "dim1", "keepdim"):
            continue
        if pname.startswith("*"):
            if pname in ("*shape", "*size", "*sizes") and name in REPEAT_COUNTS:
                required.append(", ".join(["2"] + ["1"] * (rank - 1)))
            elif pname in ("*shape", "*size", "*sizes"):
                required.append(f"-1, {shape[-1]}")
            elif pname in ("*dims", "*axis", "*axes"):
                required.append(", ".join(str(d) for d in reversed(range(rank))))
            continue
        value = argument_value(pname, shape, name)
        if value is None:
            return []  # a required argument the generator has no value for: not generated (counted)
        required.append(value)
        named.append((pname, value))
    head = ", ".join(required)
    names = [n for n, _ in params]
    # `gather(dim, index)`, `index_select(dim, index)`: the dim comes first, as PyTorch code passes it
    dim_first = keyword_dim in names and named and names.index(keyword_dim) < names.index(named[0][0])
    forms = []
    dims = dim_sets(params, rank)
    if not dims:
        # PyTorch also takes the sizes of `*size` as one sequence (`t.expand(t.shape)`, `t.view([2, -1])`)
        sequences = [(f"sizes as a {kind}", text) for kind, text in _sizes_as_sequences(params, shape)]
        return [("plain", head)] + sequences
    keepdim = any(n == "keepdim" for n, _ in params)
    sep = ", " if head else ""
    for variant, dim in dims:
        if variant == "pair":
            forms.append(("two dims", f"{head}{sep}{dim[0]}, {dim[1]}"))
        elif dim_first and variant == "keyword" and len(named) == len(required):
            forms.append(("dim=", f"{keyword_dim}={dim}, " + ", ".join(f"{n}={v}" for n, v in named)))
        elif dim_first and variant != "keyword":
            forms.append((f"{variant} dim", f"{dim}, {head}"))
        elif dim_first:
            continue
        elif variant == "keyword":
            forms.append(("dim=", f"{head}{sep}{keyword_dim}={dim}"))
            if keepdim:
                forms.append(("dim=, keepdim=True", f"{head}{sep}{keyword_dim}={dim}, keepdim=True"))
        else:
            forms.append((f"{variant} dim", f"{head}{sep}{dim}"))
    if dims[0][0] != "pair" and not any(n in ("dim", "axis") and d is None for n, d in params):
        forms.append(("plain", head))
    return forms


def _sizes_as_sequences(params: list, shape: tuple) -> list:
    """[(kind, argument text)]: a `*size` parameter's sizes passed as one tuple and as one list."""
    if len(params) != 1 or params[0][0] not in ("*shape", "*size", "*sizes"):
        return []
    sizes = f"-1, {shape[-1]}"
    return [("tuple", f"({sizes})"), ("list", f"[{sizes}]")]


def mindspore_spellings(args: str, overloads: list) -> list:
    """MindSpore's own keywords for a torch-style argument text: dim= -> axis=, keepdim= -> keepdims=."""
    spelled = re.sub(r"\bdim=", "axis=", args)
    if any("keepdims" in text for text in overloads):
        spelled = spelled.replace("keepdim=", "keepdims=")
    return [spelled] if spelled != args else []


# -- forms -----------------------------------------------------------------------------------------------------
def form(key, api, kind, torch, body, source, priority, rank=None, init="", candidates=(), variant=""):
    return {"key": key, "api": api, "kind": kind, "torch": torch, "body": body, "init": init, "rank": rank,
            "variant": variant, "candidates": [{"spelling": s, "body": b} for s, b in candidates],
            "source": source, "priority": priority}


def tensor_method_forms(torch_name: str, ms_name: str, source: str, priority: int) -> list:
    import mindspore

    name = torch_name.rsplit(".", 1)[-1]
    target = ms_name.rsplit(".", 1)[-1]
    if not hasattr(mindspore.Tensor, name) and not hasattr(mindspore.Tensor, target):
        return []
    torch_texts, overloads = tensor_overloads(name if hasattr(mindspore.Tensor, name) else target)
    if not torch_texts and name in SIGNATURELESS_FORMS:
        return _signatureless_forms(name, source, priority)
    made = []
    for torch_text in torch_texts:
        made += _tensor_overload_forms(name, target, parameters(torch_text), overloads, source, priority)
    return made


# MindSpore spellings to try for the signatureless forms (measured like every candidate).
SIGNATURELESS_SPELLINGS = {"t.size()": ("t.shape",), "t.size(1)": ("t.shape[1]",), "t.size(-1)": ("t.shape[-1]",),
                           "t.size(dim=1)": ("t.shape[1]",), "t.dim()": ("t.ndim",), "t.t()": ("t.T", "ops.t(t)"),
                           "t.mT": ("t.swapaxes(-1, -2)",)}


def _signatureless_forms(name: str, source: str, priority: int) -> list:
    setup = f"t = x.reshape({SHAPES[2]})\n"
    return [form(f"rank2:{text}", f"mindspore.Tensor.{name}", "tensor method", text, setup + f"return {text}",
                 source, priority, 2, candidates=[(spelled, setup + f"return {spelled}")
                                                  for spelled in SIGNATURELESS_SPELLINGS.get(text, ())],
                 variant="plain")
            for text in SIGNATURELESS_FORMS[name]]


def tensor_docs_rows(path: str = TENSOR_DOCS) -> list:
    """(torch name, MindSpore name, source) for PyTorch's documented Tensor methods (scripts/data/
    torch_tensor_docs.json, the names and first signature lines of torch/_tensor_docs.py) that MindSpore's Tensor
    has by the same name."""
    import mindspore

    with open(path, encoding="utf-8") as handle:
        docs = json.load(handle)
    return [(f"torch.Tensor.{method['name']}", f"mindspore.Tensor.{method['name']}", docs["source"])
            for method in docs["methods"] if hasattr(mindspore.Tensor, method["name"])]


def _tensor_overload_forms(name, target, params, overloads, source, priority) -> list:
    import mindspore

    ranks = (1, 2, 3, 4) if dim_sets(params, 4) else (2,)
    made = []
    for rank in ranks:
        if dim_sets(params, rank) and dim_sets(params, rank)[0][0] == "pair" and rank < 2:
            continue
        setup = f"t = x.reshape({SHAPES[rank]})\n"
        forms = call_forms(name, params, rank)
        if any(pname == "other" and default is None for pname, default in params):
            # PyTorch's arithmetic also takes a Python number as `other` (`t.mul_(self.scale)`)
            forms += [("scalar other", args.replace(argument_value("other", SHAPES[rank]), "0.5", 1))
                      for variant, args in forms if variant == "plain"]
        for variant, args in forms:
            torch_call = f"t.{name}({args})"
            candidates = []
            for spelled in mindspore_spellings(args, overloads):
                candidates.append((f"t.{name}({spelled})", setup + f"return t.{name}({spelled})"))
            if target != name and hasattr(mindspore.Tensor, target):
                candidates.append((f"t.{target}({args})", setup + f"return t.{target}({args})"))
            if hasattr(mindspore.ops, target):
                spelled = re.sub(r"\bdim=", "axis=", args)
                candidates.append((f"ops.{target}(t{', ' if args else ''}{spelled})",
                                   setup + f"return ops.{target}(t{', ' if args else ''}{spelled})"))
            if hasattr(mindspore.mint, name):
                candidates.append((f"mint.{name}(t{', ' if args else ''}{args})",
                                   setup + f"return mint.{name}(t{', ' if args else ''}{args})"))
            made.append(form(f"rank{rank}:{torch_call}", f"mindspore.Tensor.{name}", "tensor method", torch_call,
                             setup + f"return {torch_call}", source, priority, rank, candidates=candidates,
                             variant=variant))
    return made


def function_forms(torch_name: str, ms_name: str, source: str, priority: int) -> list:
    """torch.X / torch.nn.functional.X mapped to mindspore.mint.X or mindspore.ops.X: the mint / ops call with
    torch's argument forms (mint keeps torch's parameter names)."""
    import mindspore

    namespace, _, target = ms_name.replace("mindspore.", "", 1).rpartition(".")
    module = {"mint": mindspore.mint, "ops": mindspore.ops, "mint.nn.functional": mindspore.mint.nn.functional}.get(
        namespace)
    function = getattr(module, target, None) if module else None
    if function is None:
        return []
    try:
        params = [(p.name if p.kind is not p.VAR_POSITIONAL else "*" + p.name,
                   None if p.default is p.empty else repr(p.default))
                  for p in inspect.signature(function).parameters.values()
                  if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        return []
    if params and params[0][0] in SIZE_PARAMETERS:
        if any(default is None and not name.startswith("*") for name, default in params[1:]):
            return []  # (`full(size, fill_value)`: a required value the generator does not make up)
        return _creation_forms(namespace, target, ms_name, torch_name, source, priority)
    if not params or params[0][0] in ("tensors", "inputs", "*tensors"):
        params = params[1:] if params else params
        first = "(t, t * 0.5)"
    else:
        params, first = params[1:], "t"
    ranks = (1, 2, 3, 4) if dim_sets(params, 4) else (2,)
    made = []
    for rank in ranks:
        setup = f"t = x.reshape({SHAPES[rank]})\n"
        for variant, args in call_forms(target, params, rank):
            call = f"{namespace}.{target}({first}{', ' if args else ''}{args})"
            candidates = []
            if namespace != "ops" and hasattr(mindspore.ops, target):
                spelled = re.sub(r"\bdim=", "axis=", args)
                candidates.append((f"ops.{target}({first}{', ' if args else ''}{spelled})",
                                   setup + f"return ops.{target}({first}{', ' if args else ''}{spelled})"))
            made.append(form(f"rank{rank}:{call}", f"mindspore.{namespace}.{target}", "function", call,
                             setup + f"return {call}", source + f" ({torch_name})", priority, rank,
                             candidates=candidates, variant=variant))
    return made


SIZE_PARAMETERS = ("*size", "size", "*shape", "shape")


def _creation_forms(namespace: str, target: str, ms_name: str, torch_name: str, source: str, priority: int) -> list:
    """A Tensor-making function whose first parameter is the shape (``torch.zeros(2, 3)``): the sizes as separate
    arguments, PyTorch's habit, and as one tuple (the MindSpore spelling candidate)."""
    made = []
    for variant, args in (("sizes as varargs", "2, 3"), ("sizes as a tuple", "(2, 3)")):
        call = f"{namespace}.{target}({args})"
        candidates = [] if variant == "sizes as a tuple" else [
            (f"{namespace}.{target}((2, 3))", f"return {namespace}.{target}((2, 3))")]
        made.append(form(f"sizes:{call}", ms_name, "function", call, f"return {call}", source + f" ({torch_name})",
                         priority, None, candidates=candidates, variant=variant))
    return made


PYTHON = "Python " + ".".join(map(str, sys.version_info[:3]))
CONTAINER_SOURCE = "mindspore-ai/docs r2.4.10 pytorch_api_mapping.md: torch.nn.ModuleList / ModuleDict / Sequential"


def container_forms() -> list:
    """nn.CellList / SequentialCell / CellDict used as torch's ModuleList / Sequential / ModuleDict are."""
    layers = "nn.Dense(4, 4), nn.ReLU()"
    specs = [
        ("CellList", "index", f"self.blocks = nn.CellList([{layers}])", "return self.blocks[0](x)", ()),
        ("CellList", "iterate", f"self.blocks = nn.CellList([{layers}])",
         "for block in self.blocks:\n    x = block(x)\nreturn x", ()),
        ("CellList", "len", f"self.blocks = nn.CellList([{layers}])", "return x * len(self.blocks)", ()),
        ("CellList", "append in __init__",
         "self.blocks = nn.CellList()\nself.blocks.append(nn.Dense(4, 4))\nself.blocks.append(nn.ReLU())",
         "for block in self.blocks:\n    x = block(x)\nreturn x", ()),
        ("CellList", "negative index", f"self.blocks = nn.CellList([{layers}])", "return self.blocks[-1](x)", ()),
        ("CellList", "slice", f"self.blocks = nn.CellList([{layers}])",
         "for block in self.blocks[:1]:\n    x = block(x)\nreturn x", ()),
        ("CellList", "enumerate", f"self.blocks = nn.CellList([{layers}])",
         "for i, block in enumerate(self.blocks):\n    x = block(x) + i\nreturn x", ()),
        ("SequentialCell", "call", f"self.seq = nn.SequentialCell([{layers}])", "return self.seq(x)", ()),
        ("SequentialCell", "index", f"self.seq = nn.SequentialCell([{layers}])", "return self.seq[0](x)", ()),
        ("SequentialCell", "iterate", f"self.seq = nn.SequentialCell([{layers}])",
         "for block in self.seq:\n    x = block(x)\nreturn x", ()),
        ("SequentialCell", "len", f"self.seq = nn.SequentialCell([{layers}])", "return x * len(self.seq)", ()),
        ("SequentialCell", "varargs", f"self.seq = nn.SequentialCell({layers})", "return self.seq(x)", ()),
        ("CellDict", "attribute", "self.parts = nn.CellDict({'proj': nn.Dense(4, 4), 'act': nn.ReLU()})",
         "return self.parts.act(self.parts.proj(x))",
         (("self.parts['act'](self.parts['proj'](x))", "return self.parts['act'](self.parts['proj'](x))"),)),
        ("CellDict", "attribute from dict()", "self.parts = nn.CellDict(dict(proj=nn.Dense(4, 4), act=nn.ReLU()))",
         "return self.parts.act(self.parts.proj(x))",
         (("self.parts['act'](self.parts['proj'](x))", "return self.parts['act'](self.parts['proj'](x))"),)),
        ("CellDict", "index", "self.parts = nn.CellDict({'proj': nn.Dense(4, 4), 'act': nn.ReLU()})",
         "return self.parts['act'](self.parts['proj'](x))", ()),
        ("CellDict", "items", "self.parts = nn.CellDict({'proj': nn.Dense(4, 4), 'act': nn.ReLU()})",
         "for name, part in self.parts.items():\n    x = part(x)\nreturn x", ()),
        ("CellDict", "values", "self.parts = nn.CellDict({'proj': nn.Dense(4, 4), 'act': nn.ReLU()})",
         "for part in self.parts.values():\n    x = part(x)\nreturn x", ()),
        ("CellDict", "len", "self.parts = nn.CellDict({'proj': nn.Dense(4, 4), 'act': nn.ReLU()})",
         "return x * len(self.parts)", ()),
        ("CellDict", "in", "self.parts = nn.CellDict({'proj': nn.Dense(4, 4), 'act': nn.ReLU()})",
         "return self.parts['proj'](x) if 'proj' in self.parts else x", ()),
    ]
    made = []
    for owner, variant, init, body, candidates in specs:
        body = "x = x.reshape((6, 4))\n" + body
        made.append(form(f"nn.{owner} {variant}", f"mindspore.nn.{owner}", "container", f"{owner}: {variant}",
                         body, CONTAINER_SOURCE, 0, init=init, variant=variant,
                         candidates=[(s, "x = x.reshape((6, 4))\n" + b) for s, b in candidates]))
    return made


# Cell methods a torch port calls on a sub-Module inside forward; the arguments each needs.
CELL_METHOD_ARGUMENTS = {"set_train": "False", "to_float": "ms.float16", "apply": "apply_fn", "train": "False",
                         "set_grad": "False", "requires_grad": "False", "register_forward_hook": "forward_hook",
                         "register_forward_pre_hook": "forward_pre_hook", "add_flags": "defer_inline=True",
                         "recompute": "", "set_boost": "'O1'", "update_parameters_name": "'sub.'"}


def cell_method_forms() -> list:
    import mindspore

    made = []
    for name in sorted(dir(mindspore.nn.Cell)):
        member = getattr(mindspore.nn.Cell, name)
        if name.startswith("_") or not callable(member) or isinstance(member, type):
            continue
        try:
            required = [p for p in list(inspect.signature(member).parameters.values())[1:]
                        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            continue
        if name in ("construct", "forward", "shard", "compile", "compile_and_run", "exec_checkpoint_graph"):
            continue
        if required and name not in CELL_METHOD_ARGUMENTS:
            continue
        args = CELL_METHOD_ARGUMENTS.get(name, "")
        call = f"self.sub.{name}({args})"
        priority = 0 if name in ("set_train", "to_float", "apply", "parameters_and_names", "cells",
                                 "trainable_params", "get_parameters", "name_cells", "train") else 3
        made.append(form(f"Cell.{name}", f"mindspore.nn.Cell.{name}", "cell method", call,
                         f"_ = {call}\nreturn self.sub(x)", f"inspect: mindspore.nn.Cell.{name} (mindspore "
                         f"{mindspore.__version__})", priority, init="self.sub = nn.ReLU()"))
    return made


BUILTIN_KEYWORD_FORMS = [
    ("max", "max(x[0, 0, 0], x[0, 0, 1])", "max((x[0, 0, 0], x[0, 0, 1]), key=lambda v: v)", ()),
    ("max", "max over pairs with key=", "max(((x[0, 0, 0], 1), (x[0, 0, 1], 2)), key=lambda c: c[1])",
     (("max(pairs) on the compared item, by index", "return max((1, 2))"),)),
    ("max", "default=", "max((), default=0)", ()),
    ("min", "min over pairs with key=", "min(((x[0, 0, 0], 1), (x[0, 0, 1], 2)), key=lambda c: c[1])", ()),
    ("sorted", "key=", "sorted((3, 1, 2), key=lambda v: -v)", ()),
    ("sorted", "key=, reverse=True", "sorted((3, 1, 2), key=lambda v: v, reverse=True)", ()),
    ("sorted", "key= over Tensors", "sorted((x[0, 0, 0], x[0, 0, 1]), key=lambda v: -v)", ()),
    ("sorted", "reverse=True", "sorted((3, 1, 2), reverse=True)", ()),
    ("sum", "start=", "sum((x, x), start=x * 0)", (("sum((x, x), x * 0)", "return sum((x, x), x * 0)"),)),
    ("sum", "start positional", "sum((x, x), x * 0)", ()),
    ("enumerate", "start=", "tuple(i for i, _ in enumerate((x, x), start=1))",
     (("enumerate((x, x), 1)", "return tuple(i for i, _ in enumerate((x, x), 1))"),)),
    ("enumerate", "start positional", "tuple(i for i, _ in enumerate((x, x), 1))", ()),
    ("zip", "strict=", "tuple(a + b for a, b in zip((x, x), (x, x), strict=True))",
     (("zip((x, x), (x, x))", "return tuple(a + b for a, b in zip((x, x), (x, x)))"),)),
    ("round", "ndigits=", "round(2.567, ndigits=1)", ()),
    ("divmod", "positional", "divmod(7, 2)", ()),
    ("print", "sep=", "print(1, 2, sep=',') or x", ()),
    ("isinstance", "tuple of types", "isinstance(x, (Tensor, int))", ()),
    ("int", "base=", "int('11', base=2)", ()),
]


# Habits a port brings that are not a torch API: a list popped inside a call, MindSpore's deprecated dtype helper.
OTHER_HABITS = [
    ("list.pop in ops.cat", "list", "hs = [x, x * 2]\nreturn ops.cat([x, hs.pop()])",
     (("skip = hs.pop() before ops.cat", "hs = [x, x * 2]\nskip = hs.pop()\nreturn ops.cat([x, skip])"),)),
    ("split(sizes, axis=0) of host sizes", "host value",
     "t = x.reshape((24,))\nsizes = (t[:2] * 0 + 12).astype(ms.int32).tolist()\nreturn t.split(sizes, axis=0)",
     (("t.split(sizes, 0)",
       "t = x.reshape((24,))\nsizes = (t[:2] * 0 + 12).astype(ms.int32).tolist()\nreturn t.split(sizes, 0)"),)),
    ("mindspore.dtype_to_nptype", "mindspore function",
     "return Tensor(np.finfo(ms.dtype_to_nptype(x.dtype)).min) + x",
     (("a float constant of the dtype", "return Tensor(np.finfo(np.float32).min, ms.float32) + x"),)),
]


def other_habit_forms() -> list:
    return [form(f"habit:{name}", name, kind, name, body, "issue 42 (a GPT-2-style port, mindnlp 0.3.1)", 0,
                 candidates=candidates) for name, kind, body, candidates in OTHER_HABITS]


def builtin_forms() -> list:
    made = []
    for name, variant, call, candidates in BUILTIN_KEYWORD_FORMS:
        if not hasattr(builtins, name):
            continue
        made.append(form(f"builtin:{call}", f"builtins.{name}", "builtin", call, f"return {call}",
                         f"{PYTHON} builtins.{name}", 0 if "key=" in variant else 2, variant=variant,
                         candidates=candidates))
    return made


# A receiver and arguments per container method: the first argument values a method takes, by parameter name.
RECEIVERS = {"list": "[1, 2, 3]", "tuple": "(1, 2, 3)", "dict": "{'a': 1, 'b': 2}", "str": "'a-b c'"}
ARGUMENTS = {
    ("list", "object"): "4", ("list", "value"): "2", ("list", "iterable"): "(4, 5)", ("list", "index"): "0",
    ("tuple", "value"): "2", ("dict", "key"): "'a'", ("dict", "iterable"): "('a', 'b')",
    ("str", "sep"): "'-'", ("str", "old"): "'a'", ("str", "new"): "'x'", ("str", "sub"): "'b'",
    ("str", "prefix"): "'a'", ("str", "suffix"): "'c'", ("str", "width"): "6", ("str", "iterable"): "('a', 'b')",
    ("str", "chars"): "' '", ("str", "table"): "{}", ("str", "fillchar"): "'*'", ("str", "x"): "'a'",
    ("str", "y"): "'b'", ("str", "tabsize"): "4", ("str", "encoding"): "'utf-8'", ("str", "keepends"): "False",
}


def container_method_forms() -> list:
    made = []
    for owner, receiver in RECEIVERS.items():
        kind = getattr(builtins, owner)
        for name in sorted(dir(kind)):
            if name.startswith("_"):
                continue
            try:
                params = [p for p in inspect.signature(getattr(kind, name)).parameters.values()
                          if p.name != "self" and p.default is p.empty and p.kind is not p.VAR_KEYWORD]
            except (TypeError, ValueError):
                params = []
            if any(p.kind is p.VAR_POSITIONAL for p in params):
                args = {"format": "1, 2", "format_map": "{}"}.get(name, "")
            else:
                values = [ARGUMENTS.get((owner, p.name)) for p in params]
                if None in values:
                    continue
                args = ", ".join(values)
            if name == "format":
                body = "return '{}-{}'.format(1, 2)"
            elif name in ("fromkeys", "maketrans"):
                body = f"return {owner}.{name}({args})"
            else:
                body = f"values = {receiver}\nresult = values.{name}({args})\nreturn values, result"
            made.append(form(f"{owner}.{name}", f"{owner}.{name}", owner, f"{owner}.{name}({args})", body,
                             f"{PYTHON} dir({owner})", 4))
    # `dict.update` takes a mapping or keywords (`kwargs.update(context=c)`), which its signature does not show
    keyed = [("d[key] = value for each keyword",
              f"values = {RECEIVERS['dict']}\nvalues['c'] = 3\nresult = None\nreturn values, result")]
    for variant, args, candidates in (("mapping", "{'c': 3}", ()), ("keywords", "c=3", keyed)):
        made.append(form(f"dict.update({args})", "dict.update", "dict", f"dict.update({args})",
                         f"values = {RECEIVERS['dict']}\nresult = values.update({args})\nreturn values, result",
                         f"{PYTHON} dict.update's documented forms", 4, variant=variant, candidates=candidates))
    return made


def generate(docs: str) -> dict:
    rows = mapping_rows(docs)
    forms, seen_apis, skipped = [], set(), []
    order = {name: index for index, name in enumerate(DECODER_HABITS)}
    for torch_name, ms_name, note, source in rows:
        if torch_name in seen_apis:
            continue
        seen_apis.add(torch_name)
        short = torch_name.rsplit(".", 1)[-1]
        priority = 0 if short in order else 2
        if torch_name.startswith("torch.Tensor."):
            made = tensor_method_forms(torch_name, ms_name, source, priority)
        elif re.match(r"torch\.(nn\.functional\.)?\w+$", torch_name) and ms_name.startswith(
                ("mindspore.mint.", "mindspore.ops.")):
            made = function_forms(torch_name, ms_name, source, priority + 1)
        else:
            continue
        if made:
            forms.extend(made)
        else:
            skipped.append({"torch": torch_name, "mindspore": ms_name, "source": source,
                            "why": "no MindSpore API of that name, no signature, or a required argument the "
                                   "generator has no value for"})
    # PyTorch's own list of Tensor methods: those MindSpore's Tensor shares that the mapping pages did not give
    docs_methods = [row for row in tensor_docs_rows() if row[0] not in seen_apis]
    for torch_name, ms_name, source in docs_methods:
        seen_apis.add(torch_name)
        priority = 0 if torch_name.rsplit(".", 1)[-1] in order else 2
        made = tensor_method_forms(torch_name, ms_name, source, priority)
        if made:
            forms.extend(made)
        else:
            skipped.append({"torch": torch_name, "mindspore": ms_name, "source": source,
                            "why": "no signature, or a required argument the generator has no value for"})
    forms += other_habit_forms() + container_forms() + cell_method_forms() + builtin_forms() + container_method_forms()
    unique = {}
    for item in forms:
        unique.setdefault(item["key"], item)
    ordered = sorted(unique.values(), key=lambda f: (f["priority"], order.get(f["api"].rsplit(".", 1)[-1], 999),
                                                     f["key"]))
    import mindspore

    return {"mindspore_version": mindspore.__version__, "python": PYTHON,
            "sources": {"mapping_branches": list(MAPPING_BRANCHES), "mapping_rows": len(rows),
                        "mapping_apis": len(seen_apis) - len(docs_methods),
                        "tensor_docs_methods": len(docs_methods)},
            "forms": ordered, "not_generated": skipped}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", default="/work/.mirror/mindspore-ai+docs/repo",
                        help="the git directory of a fetched mindspore-ai/docs")
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args(argv)
    if not os.path.isdir(args.docs):
        parser.error(f"{args.docs}: not a directory (fetch github:mindspore-ai/docs first)")
    data = generate(args.docs)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
        handle.write("\n")
    counts = {}
    for item in data["forms"]:
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
    print(f"wrote {os.path.relpath(args.out, ROOT)}: {len(data['forms'])} forms {counts}; "
          f"{len(data['not_generated'])} mapped APIs without a form")
    return 0


if __name__ == "__main__":
    sys.exit(main())
