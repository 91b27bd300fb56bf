#!/usr/bin/env python3
"""Measure what the PyTorch-style call forms of scripts/data/torch_forms.json do in graph code, compared with
PYNATIVE_MODE, and which MindSpore spelling compiles and gives PYNATIVE's result.

Each form is a tiny ``nn.Cell`` whose ``construct(self, x)`` returns one call (x: a float32 Tensor of shape
(2, 3, 4), reshaped by the form to the rank it is measured at), run with the machinery of
``scripts/measure_api_behaviour.py`` (batches of probes in one child process): in PYNATIVE_MODE, in GRAPH_MODE at
the default (lax) syntax level and under ``mindspore.jit(cell, fullgraph=True)`` (strict), each time on two
inputs of the same shape and other values. A form whose outcome is not "fine" then has its candidate MindSpore
spellings measured (``swapaxes(1, 2)``, ``split(2, axis=2)``, ``ops.max(t, axis)``, a ``CellDict`` index ...);
the first that runs at both levels and returns the torch form's PYNATIVE result is its spelling. The table goes
to ``graphlint/analysis/generated/torch_habits.py``::

    .venv/bin/python scripts/measure_torch_habits.py --limit 300     # the 300 most common forms, then write
    .venv/bin/python scripts/measure_torch_habits.py                 # every form (hours on two cores)
    .venv/bin/python scripts/measure_torch_habits.py --only split --dry-run

Forms are measured in the order of their priority (the decoder habits of issue 42 first); the table records how
many of the generated forms were measured, by source.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from measure_api_behaviour import difference_kind, dynamic_shape  # noqa: E402
from measure_refused_apis import divergence, message_key, mindspore_version, run_probes  # noqa: E402

FORMS = os.path.join(ROOT, "scripts", "data", "torch_forms.json")
OUT = os.path.join(ROOT, "graphlint", "analysis", "generated", "torch_habits.py")
# Two inputs of one shape (24 elements, reshaped by each form to its rank) with other values.
INPUTS = ("[(Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7),),"
          " (Tensor((np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 7 % 11) - 5),)]")
# Messages of a graph compile that found no CPU kernel for an op PYNATIVE_MODE ran (it uses another kernel).
NO_CPU_KERNEL = re.compile(r"Unsupported op \[\w+\] on CPU|kernel \w+ unregistered|Kernel select failed|"
                           r"not support(ed)? on CPU|no kernel", re.I)


# PYNATIVE_MODE's refusal of an argument that only takes int32 on CPU.
INT32_ONLY = re.compile(r"must be a type of \{[^}]*Int32")


@dataclass(frozen=True)
class HabitProbe:
    key: str
    body: str
    init: str = ""


def load_forms(path: str = FORMS) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def probe_body(item: dict, body: str) -> str:
    """An in-place method (``name_``) also returns the receiver, so that a write lost in graph code shows."""
    if item["kind"] == "tensor method" and re.search(r"\.\w+_\(", item["torch"]):
        lines = body.splitlines()
        return "\n".join(lines[:-1] + ["out = " + lines[-1][len("return "):], "return out, t"])
    return body


def refusal(record: dict) -> str:
    return "no CPU kernel" if NO_CPU_KERNEL.search(record.get("message", record.get("error", ""))) else "refused"


def level_outcome(record: dict, reference: dict) -> str:
    if record.get("status") in ("crashed", "timeout"):
        return record["status"]
    if record.get("status") != "ok":
        return refusal(record)
    kind = difference_kind(record, reference)
    return f"differs: {kind}" if kind else "fine"


def verdict(pynative: dict, lax: str, strict: str, dynamic: bool) -> str:
    if pynative.get("status") != "ok":
        return "pynative fails"
    if lax in ("refused", "no CPU kernel", "crashed", "timeout"):
        return "no CPU kernel" if "no CPU kernel" in (lax, strict) else "refused"
    if strict in ("refused", "no CPU kernel", "crashed", "timeout"):
        return "falls back"
    if lax.startswith("differs") or strict.startswith("differs"):
        return "differs"
    return "dynamic shape" if dynamic else "fine"


def entry_of(item: dict, records: dict) -> dict:
    pyn, lax, strict = records["pynative"], records["lax"], records["strict"]
    lax_outcome, strict_outcome = level_outcome(lax, pyn), level_outcome(strict, pyn)
    failing = next((r for r in (lax, strict) if r.get("status") != "ok"), {}) if pyn.get("status") == "ok" else pyn
    error = failing.get("error", "")
    kernel = NO_CPU_KERNEL.search(failing.get("message", ""))
    if kernel:  # the line naming the op, not "Kernel select failed:"
        error = next(line.strip() for line in failing["message"].splitlines() if NO_CPU_KERNEL.search(line))
        error = next((line.strip() for line in failing["message"].splitlines()
                      if re.search(r"Unsupported op|unregistered", line)), error)
    return {
        "api": item["api"], "kind": item["kind"], "torch": item["torch"], "variant": item["variant"],
        "rank": item["rank"],
        "lax": lax_outcome, "strict": strict_outcome,
        "verdict": verdict(pyn, lax_outcome, strict_outcome, dynamic_shape(pyn)),
        "difference": (divergence(lax, pyn) or divergence(strict, pyn))[:200],
        "error_class": failing.get("type", "") if error else "",
        "error": error[:300],
        "message_key": message_key(failing.get("message", error)) if error else "",
        "spelling": "",
    }


def matches(candidate: dict, reference: dict) -> bool:
    """The candidate ran at both levels and gave the torch form's PYNATIVE_MODE result on both inputs."""
    if reference.get("status") != "ok":
        return False
    for level in ("lax", "strict"):
        record = candidate[level]
        if record.get("status") != "ok" or divergence(record, reference):
            return False
        others = zip(record.get("more", []), reference.get("more", []))
        if any(divergence({"status": "ok", "out": mine}, {"status": "ok", "out": theirs}) for mine, theirs in others):
            return False
    return True


def measure(items: list, log=print, batch_size: int = 40) -> dict:
    probes = [HabitProbe(item["key"], probe_body(item, item["body"]), item["init"]) for item in items]
    raw = run_probes(probes, log, batch_size=batch_size, inputs=INPUTS)
    measured = {item["key"]: entry_of(item, raw[index]) for index, item in enumerate(items)}
    # The candidate spellings of the forms graph mode does not run as PYNATIVE_MODE does.
    wanted = [(item, candidate) for item in items
              if measured[item["key"]]["verdict"] not in ("fine", "pynative fails", "dynamic shape")
              for candidate in item["candidates"]]
    if wanted:
        log(f"{len(wanted)} candidate spellings")
        candidate_raw = run_probes([HabitProbe(f"{item['key']} => {c['spelling']}",
                                               probe_body(item, c["body"]), item["init"]) for item, c in wanted],
                                   log, batch_size=batch_size, inputs=INPUTS)
        reference = {item["key"]: raw[index]["pynative"] for index, item in enumerate(items)}
        for index, (item, candidate) in enumerate(wanted):
            entry = measured[item["key"]]
            entry.setdefault("candidates", {})[candidate["spelling"]] = verdict(
                candidate_raw[index]["pynative"], level_outcome(candidate_raw[index]["lax"], reference[item["key"]]),
                level_outcome(candidate_raw[index]["strict"], reference[item["key"]]), False)
            if not entry["spelling"] and matches(candidate_raw[index], reference[item["key"]]):
                entry["spelling"] = candidate["spelling"]
    settle_value_differences(items, measured, log)
    measured.update(_with_int32_indices(items, measured, log, batch_size))
    return measured


def _with_int32_indices(items: list, measured: dict, log, batch_size: int) -> dict:
    """The forms PYNATIVE_MODE refused only for their int64 index (``IndexAdd``, ``IndexFill`` on CPU take
    int32: "must be a type of {Tensor[Int32]}"), measured again with int32 indices, as a user whose PYNATIVE run
    failed would write them. Without this, such a form counts as "pynative fails" and nothing it does in graph
    mode is recorded (a Conv-TasNet port's `index_add`, which has no CPU kernel in graph mode, was missed). What
    a form with a two-entry index adds or copies along its dim (the last axis) is cut to two entries there, as
    PYNATIVE_MODE also asks of it."""
    def int32(text: str) -> str:
        text = text.replace("ms.int64", "ms.int32")
        return text.replace("t * 0.5", "t[..., :2] * 0.5") if "Tensor([0, 1], ms.int32)" in text else text
    retried = [dict(item, body=int32(item["body"]), torch=int32(item["torch"]),
                    candidates=[dict(c, body=int32(c["body"]), spelling=int32(c["spelling"]))
                                for c in item["candidates"]])
               for item in items if measured[item["key"]]["verdict"] == "pynative fails"
               and "ms.int64" in item["body"] and INT32_ONLY.search(measured[item["key"]]["error"])]
    if not retried:
        return {}
    log(f"{len(retried)} forms again with int32 indices")
    found = measure(retried, log, batch_size)
    return {key: entry for key, entry in found.items() if entry["verdict"] != "pynative fails"}


# Verdicts of a form whose values PYNATIVE_MODE itself does not fix: comparing graph mode's values with them says
# nothing about graph mode.
RANDOM, UNDEFINED = "random", "undefined values"


def settle_value_differences(items: list, measured: dict, log=print) -> None:
    """A form that differs in its values only is a draw from the random generator (PYNATIVE_MODE gives other
    values under another seed: ``random``) or uninitialised memory (MindSpore's docstring says so: ``undefined
    values``) before it counts as computing otherwise."""
    only_values = [item for item in items if measured[item["key"]]["verdict"] == "differs" and
                   all(measured[item["key"]][level] in ("fine", "differs: values") for level in ("lax", "strict"))]
    if not only_values:
        return
    undefined = [item for item in only_values if "uninitialized" in _docstring(item["api"]).lower()]
    for item in undefined:
        measured[item["key"]]["verdict"] = UNDEFINED
    drawn = [item for item in only_values if item not in undefined]
    if not drawn:
        return
    log(f"{len(drawn)} forms differing in values: measured under two seeds")
    raw = run_probes([HabitProbe(f"{item['key']} seeds", _under_two_seeds(item["body"]), item["init"])
                      for item in drawn], log, inputs=INPUTS)
    for index, item in enumerate(drawn):
        pynative = raw[index]["pynative"]
        if pynative.get("status") == "ok" and _seed_changes(pynative["out"]):
            measured[item["key"]]["verdict"] = RANDOM


def _under_two_seeds(body: str) -> str:
    """The probe's body computing its form under seed 1 and under seed 2, returning both."""
    lines = body.splitlines()
    form = lines[-1][len("return "):]
    return "\n".join(lines[:-1] + ["ms.set_seed(1)", f"first = {form}", "ms.set_seed(2)",
                                   f"return first, {form}"])


def _seed_changes(output) -> bool:
    """The probe returned (first, second): the form's values under the two seeds differ."""
    from graphlint.validate.compare import difference

    pair = output.get("items", []) if isinstance(output, dict) and output.get("t") in ("tuple", "list") else []
    return len(pair) == 2 and bool(difference(pair[0], pair[1]))


def _docstring(api: str) -> str:
    import importlib

    module, _, name = api.rpartition(".")
    try:
        owner = importlib.import_module(module)
    except ImportError:  # mindspore.Tensor.log_normal: a class's method
        module, _, owner_name = module.rpartition(".")
        try:
            owner = getattr(importlib.import_module(module), owner_name, None)
        except ImportError:
            return ""
    return getattr(getattr(owner, name, None), "__doc__", None) or ""


def counts(forms: dict, measured: dict) -> dict:
    """Forms generated and measured per source, and measured forms per outcome."""
    def source_of(item):
        source = item["source"]
        if source.startswith("mindspore-ai/docs"):
            return "mapping pages: " + item["kind"]
        if source.startswith("issue"):
            return "issue 42 habits"
        if source.startswith("pytorch/pytorch"):
            return "PyTorch's Tensor docs: " + item["kind"]
        return source.split(" ")[0] + " " + item["kind"] if source.startswith("Python") else item["kind"]

    generated, done, outcomes = {}, {}, {}
    for item in forms["forms"]:
        name = source_of(item)
        generated[name] = generated.get(name, 0) + 1
        if item["key"] in measured:
            done[name] = done.get(name, 0) + 1
            outcome = measured[item["key"]]["verdict"]
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    with_spelling = sum(1 for e in measured.values() if e["spelling"])
    return {"generated": generated, "measured": done, "outcomes": outcomes, "with_spelling": with_spelling,
            "forms": len(forms["forms"]), "measured_forms": len(measured),
            "mapping_rows": forms["sources"]["mapping_rows"], "not_generated": len(forms["not_generated"])}


def render(measured: dict, summary: dict, version: str) -> str:
    from mindspore_tables import render_module

    doc = ("What the PyTorch-style call forms (scripts/data/torch_forms.json, from MindSpore's API mapping pages,\n"
           "its Tensor signatures, the nn containers, Cell methods, builtins and container methods) do in graph\n"
           "code, MEASURED by compiling one small nn.Cell per form and comparing with PYNATIVE_MODE, with the\n"
           "MindSpore spelling measured to give PYNATIVE_MODE's result at both levels.")
    return render_module(version, doc, [
        ("HABITS", measured,
         "form key (of scripts/data/torch_forms.json, which has its source and the probe's code) -> what running\n"
         "it did. 'torch' is the call as a PyTorch port writes it, run on x: float32 Tensor reshaped to 'rank'.\n"
         "'lax' / 'strict': 'fine', 'refused', 'no CPU kernel', 'differs: structure|dtype|shape|values',\n"
         "'crashed', 'timeout'. 'verdict': 'no CPU kernel', 'refused' (lax fails), 'falls back' (lax runs, strict\n"
         "fails), 'differs', 'random' / 'undefined values' (differs in values only, as PYNATIVE_MODE does under\n"
         "another seed / uninitialised memory), 'dynamic shape', 'fine', 'pynative fails' (MindSpore does not take\n"
         "the form at all).\n"
         "'error' / 'error_class': MindSpore's first message line and exception class. 'spelling': the first\n"
         "candidate that ran at both levels with PYNATIVE_MODE's result ('' if none did); 'candidates': each\n"
         "candidate's verdict."),
        ("COUNTS", summary, "forms generated and measured per source, and measured forms per outcome."),
    ], script="scripts/measure_torch_habits.py", how=" (measured by compiling, not read from sources)")


def select(forms: dict, only=None, limit=None) -> list:
    items = forms["forms"]
    if only:
        items = [item for item in items if any(word in item["key"] for word in only)]
    return items[:limit] if limit else items


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="print the results, do not write the table")
    parser.add_argument("--only", nargs="*", default=None, help="measure only forms whose key contains one of these")
    parser.add_argument("--limit", type=int, default=None, help="measure the first N forms (by priority)")
    parser.add_argument("--keep", action="store_true", help="keep the forms measured before and not measured now")
    parser.add_argument("--next", type=int, default=None, metavar="N",
                        help="measure the next N forms the table lacks (by priority) and keep the table's others")
    parser.add_argument("--recount", action="store_true",
                        help="measure nothing: rewrite the table's counts for the current forms list")
    args = parser.parse_args(argv)
    if args.recount:
        from graphlint.analysis.generated import torch_habits

        for entry in torch_habits.HABITS.values():  # fields the table no longer keeps (the forms list has them)
            for name in ("body", "init", "source", "spelling_body"):
                entry.pop(name, None)
            entry["difference"] = entry["difference"][:200]
        with open(OUT, "w", encoding="utf-8") as handle:
            handle.write(render(torch_habits.HABITS, counts(load_forms(), torch_habits.HABITS),
                                torch_habits.MINDSPORE_VERSION))
        return 0
    if args.limit is not None and args.limit <= 0:
        parser.error("--limit must be positive")
    forms = load_forms()
    items = select(forms, args.only, args.limit)
    if args.next:
        from graphlint.analysis.generated import torch_habits

        items = [item for item in items if item["key"] not in torch_habits.HABITS][:args.next]
        args.keep = True
    if not items:
        parser.error("no form matches")
    measured = measure(items)
    for key, entry in measured.items():
        print(f"{entry['verdict']:14} lax={entry['lax']:18} strict={entry['strict']:18} {key:50} "
              f"{entry['spelling'] or '-':30} {entry['error'][:90]}")
    if args.dry_run:
        return 0
    if args.keep:
        from graphlint.analysis.generated import torch_habits

        measured = {**torch_habits.HABITS, **measured}
    generated = {item["key"] for item in forms["forms"]}
    measured = {key: entry for key, entry in measured.items() if key in generated}  # (forms no longer generated)
    summary = counts(forms, measured)
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write(render(measured, summary, mindspore_version()))
    print(f"wrote {os.path.relpath(OUT, ROOT)}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
