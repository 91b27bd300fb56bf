"""Port mode on the blind ports (benchmarks/ports/): does one run list every blocker the compiler confirms?

For each port below, its model is declared as a port-mode entry (a factory and example inputs, in a module beside
a copy of the port) and ``graphlint --diff --unsafe-fixes --validate`` is run once, as a user runs it. The
yardstick is the port's labels (made by compiling, by someone who never saw graphlint): a problem labelled fatal
at a level is *in reach* when the entry's PYNATIVE_MODE run executes one of its lines (measured here with a line
trace, in MindSpore's Python), and *handled* when the report lists a blocker (confirmed or suggested) or a finding
at one of its lines, or ``--fix`` rewrites one of its lines (the report is then of the fixed text). Listed
blockers at no labelled line are printed for review: each is an unlabelled problem, a
consequence of another, or a false blocker.

    python benchmarks/port_mode.py [PORT ...] [--verbose]

Needs MindSpore in graphlint's Python (``pip install -e '.[validate]'``). Takes about a minute per port.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORTS = os.path.join(ROOT, "benchmarks", "ports")

# port -> (the entry's Cell class, the factory's body, the inputs' body): Python over the port module `port`.
ENTRIES = {
    "capsnet": ("CapsNet", "port.build(0)", "(port.make_batch(1)[0],)"),
    "convtasnet": ("ConvTasNet", "port.build(0)", "(port.make_inputs(1)[0],)"),
    "unet_sw": ("UNet", "port.build(0)", "(port.make_inputs(1)[0],)"),
    "gnn_mp": ("GraphPredictor", "port.build()", "tuple(port.make_batch())"),
    "pointnet2": ("ClsPredictor", "port.build(0)[0]", "(port.make_inputs()[0],)"),
    "wavenet": ("WaveNet", "port.build_model(0)", "tuple(port.make_inputs())"),
    "tabnet": ("TabNet", "port.build()", "(ms.Tensor(port.make_data(1)[0]),)"),
    "swin": ("SwinPredictor", "port.build(0)", "(ms.Tensor(port.make_batches()[0][0]),)"),
    "vqvae": ("VQVAE", "port.build()[0]",
              "(ms.Tensor((np.random.RandomState(1).randn(2, 1, 8, 8) * 4).astype(np.float32)),)"),
    "mae": ("MaskedAutoencoderViT", "port.build()",
            "(ms.Tensor(np.random.RandomState(1).rand(2, 3, 16, 16).astype(np.float32)),)"),
    "bert_qa": ("BertForQuestionAnswering", "port.build()", "port.make_inputs()"),
    "transfo_xl": ("MemTransformerLM", "port.build()", "tuple(port.make_batch(1))"),
    "mamba_ssm": ("Mamba", "port.build(0)[1]", "(port.CharTokenizer()(['mamba is', 'a snake!']),)"),
    "bilstm_crf": ("DecodeCell", "port.build()", "tuple(port.make_batch(1)[:2])"),
    "stylegan2": ("TruncatedGenerator", "port.build()",
                  "(ms.Tensor(np.random.RandomState(1).randn(2, 32).astype(np.float32)),)"),
    "rssm_world": ("DreamerLoss", "port.build()", "tuple(port.make_inputs(0))"),
    "perceiver_io": ("PerceiverIOClassifier", "port.build()", "tuple(port.make_inputs(0))"),
    "rotate_kge": ("TestStep", "port.build()", "(lambda made: (made[0], made[3], made[4]))(port.make_inputs(1))"),
    "pointer_tsp": ("GreedyTSP", "port.build()",
                    "(ms.Tensor(np.random.RandomState(0).rand(2, 8, 2).astype(np.float32)),)"),
    "timm_train": ("TrainStep", "port.build()[2]", "port.make_batch(0)"),
    "evoformer_ipa": ("AlphaFold", "(ms.set_seed(0), np.random.seed(0), port.AlphaFold())[2]",
                      "(lambda f: (f['target_feat'], f['msa_feat'], f['residue_index']))(port.make_inputs(1))"),
    "ast_audio": ("Predictor", "(lambda model: (model.set_train(False), port.Predictor(model, k=3))[1])(port.build(0)[1])",
                  "(port.make_inputs(1)[0],)"),
    "sam_prompt": ("SamPredictor", "(ms.set_seed(0), port.SamPredictor(port.build_sam_tiny()))[1]",
                   "(lambda made: (made[1], made[2], made[3], True))(port.make_inputs(1))"),
    "timesformer": ("MultiViewInference",
                    "(lambda model: (model.set_train(False), port.MultiViewInference(model, port.CLASS_NAMES))[1])"
                    "(port.build(0))", "(port.inputs(1)[1],)"),
}

ENTRY_MODULE = '''import numpy as np
import mindspore as ms

import {name} as port


def build():
    return {build}


def inputs():
    return {inputs}
'''

# Run in MindSpore's Python: the lines of the port the entry's PYNATIVE_MODE call executes.
TRACE = '''import json, sys
sys.path.insert(0, sys.argv[1])
import mindspore as ms
ms.set_context(mode=ms.PYNATIVE_MODE)
import port_entry
model = port_entry.build()
args = port_entry.inputs()
target = sys.argv[2]
lines = set()
def trace(frame, event, arg):
    if frame.f_code.co_filename == target:
        lines.add(frame.f_lineno)
        return trace
    return None
sys.settrace(trace)
model(*args)
sys.settrace(None)
print(json.dumps(sorted(lines)))
'''

FIXED = re.compile(r"^  would fix [\w/.-]+\.py:(\d+):", re.M)
LISTED = re.compile(r"^  (?:\d+\.|-) \[(lax|STRICT)\] (?:[\w/.-]+\.py):(\d+)(?::| \()", re.M)
# a blocker MindSpore names no line for, tied to the one finding of its rule in the part compiled
IN_PART = re.compile(r"^     \w+ [\w-]+ \(reported in [\w.]+ at line (\d+); MindSpore names no line\)", re.M)


def run_port(name: str, verbose: bool) -> dict:
    cell, build, inputs = ENTRIES[name]
    labels = json.load(open(os.path.join(PORTS, name, "labels.json"), encoding="utf-8"))["problems"]
    with tempfile.TemporaryDirectory(prefix=f"port-mode-{name}-") as folder:
        text = open(os.path.join(PORTS, name, f"{name}.py"), encoding="utf-8").read()
        with open(os.path.join(folder, f"{name}.py"), "w", encoding="utf-8") as handle:
            handle.write(text)
        with open(os.path.join(folder, "port_entry.py"), "w", encoding="utf-8") as handle:
            handle.write(ENTRY_MODULE.format(name=name, build=build, inputs=inputs))
        with open(os.path.join(folder, "pyproject.toml"), "w", encoding="utf-8") as handle:
            handle.write(f'[tool.graphlint.validate.inputs]\n"{name}:{cell}" = {{ inputs = "port_entry:inputs", '
                         f'factory = "port_entry:build" }}\n')
        traced = subprocess.run([sys.executable, "-c", TRACE, folder, os.path.join(folder, f"{name}.py")],
                                capture_output=True, text=True, timeout=900, cwd=folder)
        executed = set(json.loads(traced.stdout.strip().splitlines()[-1])) if traced.returncode == 0 else set()
        started = time.perf_counter()
        run = subprocess.run([sys.executable, "-c", "from graphlint.cli import run; run()", "--diff", "--unsafe-fixes", "--validate",
                              f"{name}.py"], capture_output=True, text=True, timeout=1800, cwd=folder)
        seconds = time.perf_counter() - started
    report = run.stderr.split("graphlint port: ", 1)[1] if "graphlint port: " in run.stderr else run.stderr
    listed = {(level, int(line)) for level, line in LISTED.findall(report)}
    listed_lines = {line for _, line in listed} | {int(line) for line in IN_PART.findall(report)}
    fixed_lines = {int(line) for line in FIXED.findall(run.stderr)}
    reach, found, missed = [], [], []
    for problem in labels:
        fatal = [level for level in ("lax", "strict") if problem.get(level) == "fatal"]
        if not fatal or not executed & set(problem["lines"]):
            continue
        reach.append(problem["id"])
        (found if (listed_lines | fixed_lines) & set(problem["lines"]) else missed).append(problem)
    labelled = {line for problem in labels for line in problem["lines"]}
    unlabelled = sorted(line for line in listed_lines if line not in labelled)
    if verbose:
        print(report)
        for problem in missed:
            print(f"  missed #{problem['id']} {problem['lines']}: {problem['what'][:110]}")
        if unlabelled:
            print(f"  listed at lines no label names: {unlabelled}")
    return {"port": name, "reach": len(reach), "found": len(found), "unlabelled": unlabelled, "seconds": seconds,
            "lines": len(text.splitlines()), "head": report.splitlines()[0][:100] if report else ""}


def main(argv: list) -> int:
    verbose = "--verbose" in argv
    names = [a for a in argv if not a.startswith("--")] or sorted(ENTRIES)
    total_reach = total_found = 0
    for name in names:
        result = run_port(name, verbose)
        total_reach += result["reach"]
        total_found += result["found"]
        print(f"{name}: {result['found']}/{result['reach']} fatal problems in reach fixed or listed; "
              f"{len(result['unlabelled'])} listed at unlabelled lines; {result['seconds']:.0f} s for "
              f"{result['lines']} lines", flush=True)
    if len(names) > 1:
        print(f"all: {total_found}/{total_reach} = {total_found / max(total_reach, 1):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
