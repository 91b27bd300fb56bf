"""Port mode on the two shapes of model of issue 40, rebuilt small, and on four habits whose messages other rules'
catalogues list. MindSpore compiles every step; the report must say only what the compiler says about the user's
code: blockers confirmed by compiling the model itself (no stand-ins), what a part compiled alone suggests kept
apart, a rule named only where it reports the line and predicts the message, graphlint's own objects never named,
and a model that compiles but returns other values than in PYNATIVE_MODE never called done.

tests/fixtures/port/diffusion.py: a DDIM sampler built by a factory around a small UNet (sub-Cells in an
``nn.CellDict``, skips popped from a list in a sub-Cell) and a diffusers-style scheduler, a plain object whose
``set_timesteps`` the sampler calls in ``construct``. tests/fixtures/port/decoder.py: a GPT-2-style decoder whose
``generate`` loop calls ``self(ids)``, with PyTorch's ``transpose(1, 2)`` on 4-D Tensors.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "port")
LISTED = re.compile(r"^  (?:\d+\.|-) \[(lax|STRICT)\] (\w+\.py):(\d+): (.*)\n     (.*)\n     log: (.*)$", re.M)
# graphlint's own objects, as MindSpore would name them in a message about a stand-in
ARTIFACTS = ("graphlint.validate", "Recorded", "Namespace:graphlint", "graphlint_recorded")


def _port(folder, name: str, *options) -> str:
    run = subprocess.run([sys.executable, "-c", "from graphlint.cli import run; run()", "--diff", "--unsafe-fixes",
                          "--validate", *options, f"{name}.py"], cwd=folder, capture_output=True, text=True,
                         timeout=900)
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    report = run.stderr.split("graphlint port: ", 1)[1]
    for artifact in ARTIFACTS:
        assert artifact not in report, report
    return report


def _copy(tmp_path, name: str) -> str:
    for file in (f"{name}.py", "pyproject.toml"):
        shutil.copy(os.path.join(FIXTURE, file), tmp_path / file)
    return (tmp_path / f"{name}.py").read_text()


def _listed(report: str, text: str) -> dict:
    """{the source line listed: (level, what the report says of its rule, the log)}."""
    lines = text.splitlines()
    return {lines[int(line) - 1].strip(): (level, rule, log) for level, _, line, _, rule, log in LISTED.findall(report)}


def _confirmed(report: str, text: str) -> list:
    """The listed lines before the parts' suggestions: the blockers confirmed by compiling the model."""
    return list(_listed(report.split("compiled alone")[0], text))


def test_a_rule_is_named_only_where_it_reports_the_line_and_predicts_the_message(tmp_path):
    """The messages of these four habits are listed by other rules' catalogues (E5211's LSTM state, W5502's NumPy,
    E5401's loop bodies, W5209's attribute writes); none of those rules reports these lines, so none is named. (With
    W5503 ignored, math.sqrt on a Tensor is reported by no rule and not fixed: it stays a STRICT blocker.)"""
    text = _copy(tmp_path, "habits")
    report = _port(tmp_path, "habits", "--ignore", "W5503")
    # The transpose (E5212's swapaxes), `self(self(x))` (E6007's self.construct) and the nn.CellDict attribute
    # (E6005) are rewritten by their fixes: the text --fix would write keeps only the math.sqrt, a STRICT blocker.
    assert report.startswith("habits:Habits: lax compiles, STRICT fails (the text --fix would write); 1 blocker "
                             "confirmed by compiling the model"), report
    listed = _listed(report, text)
    assert _confirmed(report, text) == ["return x / math.sqrt(x.abs().mean())"], report
    assert {line: level for line, (level, _, _) in listed.items()} == {
        "return x / math.sqrt(x.abs().mean())": "STRICT"}, report
    # No rule reports that line (W5503 ignored), so none is named, and none of the rules whose catalogues list the
    # message is.
    assert listed["return x / math.sqrt(x.abs().mean())"][1].startswith("no rule yet: "), report
    for wrong in ("E5211", "W5502", "E5401", "W5209"):
        assert wrong not in report, report
    assert report.endswith("  each failed compile's log is in .graphlint_cache/port/habits.Habits/ (graphlint "
                           "explain-error LOG)\n"), report
    # Each log is what explain-error reads: the message, and the line in the user's file.
    log = listed["return x / math.sqrt(x.abs().mean())"][2]
    explained = subprocess.run([sys.executable, "-c", "from graphlint.cli import run; run()", "explain-error", log],
                               cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert explained.returncode in (0, 1), explained.stdout + explained.stderr
    assert "the inputs should be constant" in explained.stdout, explained.stdout


SAMPLER_EDITS = [  # what the report's blockers ask for, as a user makes them (old text -> new text)
    ("        self.scheduler.set_timesteps(NUM_STEPS)\n        sample = noise\n", "        sample = noise\n"),
    ("    return Sampler(TinyUNet(), DDIMScheduler())\n",
     "    scheduler = DDIMScheduler()\n    scheduler.set_timesteps(NUM_STEPS)\n"
     "    return Sampler(TinyUNet(), scheduler)\n"),
    ("self.blocks.down1(", 'self.blocks["down1"]('), ("self.blocks.down2(", 'self.blocks["down2"]('),
    ("self.blocks.up1(", 'self.blocks["up1"]('), ("self.blocks.up2(", 'self.blocks["up2"]('),
    ("        return SchedulerOutput(prev_sample=prev_sample)\n", "        return prev_sample\n"),
    (".step(model_output, t, sample).prev_sample\n", ".step(model_output, t, sample)\n"),
]
SKIP_EDITS = [  # the skip connection passed to the sub-Cell, not popped from a list there
    ("    def construct(self, h, hs):\n        skip = hs.pop()\n", "    def construct(self, h, skip):\n"),
    ('self.blocks["up1"](h, hs)', 'self.blocks["up1"](h, hs[1])'),
    ('self.blocks["up2"](h, hs)', 'self.blocks["up2"](h, hs[0])'),
]


def _edited(text: str, edits: list) -> str:
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


def test_the_sampler_blockers_are_confirmed_on_fresh_objects_and_wrong_outputs_are_not_done(tmp_path):
    text = _copy(tmp_path, "diffusion")
    report = _port(tmp_path, "diffusion")
    # The whole model is compiled as the user compiles it, built afresh by the factory: the PYNATIVE_MODE run's
    # set_timesteps() on its own scheduler does not hide that a compile reads `timesteps` before any call set it.
    assert report.startswith("diffusion:Sampler: lax fails, STRICT fails (the text --fix would write); 3 blockers "
                             "confirmed by compiling the model"), report
    # Every blocker in one run: after each error a statement is cut from a scratch copy and the model compiled
    # again, lax then STRICT (from lax's cuts). The loop first runs over the timesteps PYNATIVE_MODE saw; `step`'s
    # `previous` differs from call to call, so the cut after it is the whole loop (the values after it), exact. The
    # UNet's nn.CellDict attributes are rewritten by E6005's fix, so the text --fix would write no longer stops
    # there. STRICT then stops at the call of set_timesteps in construct (named there, where the edit goes).
    assert _confirmed(report, text) == [
        "for t in self.scheduler.timesteps:",
        "previous = timestep - self.num_train_timesteps // self.num_inference_steps",
        "self.scheduler.set_timesteps(NUM_STEPS)"], report
    assert "1. [lax] diffusion.py:88: AttributeError: 'DDIMScheduler' object has no attribute 'timesteps'\n" \
           "     no rule yet: " in report, report
    # (MindSpore's object address, another in every compile, is not part of the message)
    assert "2. [lax] diffusion.py:33: AttributeError: ClassMember: 'Namespace:diffusion..<DDIMScheduler>' object " \
           "has no attribute 'num_inference_steps'\n" in report, report
    # What the loop's body holds beyond that, `step` compiled alone shows: the dataclass built from Tensors.
    suggested = report.split("compiled alone")[1]
    assert "- [STRICT] diffusion.py:37: When handling script" in suggested and \
           "W5508 python-object-from-tensor (reported here)" in suggested, report
    confirmed_part = report.split("compiled alone")[0]
    # W5209 is named only where it reports the attribute write (a part's suggestion), never for a confirmed blocker.
    assert "W5209" not in confirmed_part and "nothing left in the way" not in report, report
    assert "diffusion.py:27: In JIT strict mode, if need to modify a member attribute" in report and \
           "W5209 attribute-write-in-graph (reported here)" in report, report
    # The same run names what no compile reached, STRICT's outputs: the UNet's up blocks each pop the skip list
    # (STRICT passes the list by value, and each pops the same element; the edit SKIP_EDITS makes).
    behind = report.split("tied to none of the errors above")[1]
    assert "- [STRICT] diffusion.py:74: I5221 list-popped-by-callees: `self.blocks['up1'](...)` pops from `hs`" \
        in behind, report

    (tmp_path / "diffusion.py").write_text(_edited(text, SAMPLER_EDITS))
    compiled = _port(tmp_path, "diffusion")
    # Both levels compile; at STRICT the list popped in a sub-Cell is the caller's copy: other values.
    assert compiled.startswith("diffusion:Sampler: lax compiles, STRICT compiles (the text --fix would write):\n"
                               "  [STRICT] the model compiles, and returns other values than in PYNATIVE_MODE on the "
                               "declared inputs: output: 128 of 128 elements differ, by up to "), compiled
    assert "nothing left in the way" not in compiled and "[lax] the model compiles" not in compiled, compiled
    assert "  - diffusion.py:74: I5221 list-popped-by-callees" in compiled.split("of rules whose examples")[1], compiled

    (tmp_path / "diffusion.py").write_text(_edited(_edited(text, SAMPLER_EDITS), SKIP_EDITS))
    done = _port(tmp_path, "diffusion")
    assert done == "diffusion:Sampler: lax compiles, STRICT compiles (the text --fix would write); nothing left in " \
                   "the way: the outputs are PYNATIVE_MODE's\n", done


def test_the_decoder_blockers_and_after_the_edits_its_outputs(tmp_path):
    text = _copy(tmp_path, "decoder")
    report = _port(tmp_path, "decoder")
    # The transposes are rewritten by E5212's fix (swapaxes) and `self(ids)` by E6007's (self.construct): the text
    # --fix would write compiles at both levels and gives PYNATIVE_MODE's outputs.
    assert report == "decoder:Generator: lax compiles, STRICT compiles (the text --fix would write); nothing left " \
                     "in the way: the outputs are PYNATIVE_MODE's\n", report

    (tmp_path / "decoder.py").write_text(text.replace("logits = self(ids)", "logits = self.construct(ids)")
                                         .replace(".transpose(1, 2)", ".swapaxes(1, 2)"))
    done = _port(tmp_path, "decoder")
    assert done == "decoder:Generator: lax compiles, STRICT compiles (the text --fix would write); nothing left in " \
                   "the way: the outputs are PYNATIVE_MODE's\n", done


def test_an_error_without_a_line_is_named_by_the_rule_reported_in_the_part_compiled(tmp_path):
    """MindSpore names no line for "Nested execution during JIT execution": compiled alone, the function that makes
    the solver raises it, and the one finding there of a rule whose examples produce the message names it."""
    text = _copy(tmp_path, "solver")
    report = _port(tmp_path, "solver")
    line = text.splitlines().index("    return SOLVERS[method](func, y0).integrate()") + 1
    assert "Nested execution during JIT execution" in report, report
    assert f"E5516 cell-called-by-interpreted-object (reported in odeint at line {line}; MindSpore names no line)" \
        in report, report


def test_an_error_of_the_whole_model_without_a_line_is_cut_where_its_one_finding_is_and_the_compiles_go_on(tmp_path):
    """STRICT's "output index [0] large than the output size [0] of node!" names no line. The one finding in the
    code that ran whose rule predicts it (I5118, the mask check in `_validate`) names it, and the next compile cuts
    that `if` (a `pass` keeps `_validate` a function) and goes on to the next blocker, `math.sqrt` of a Tensor."""
    text = _copy(tmp_path, "checks")
    report = _port(tmp_path, "checks", "--ignore", "W5503")
    assert report.startswith("checks:Tagger: lax compiles, STRICT fails"), report
    assert "the compiles of the model stopped there" not in report, report
    assert _confirmed(report, text) == ["return y / math.sqrt(y.abs().mean())"], report
    check = text.splitlines().index("        if not (mask[:, 0] == mask[:, 0]).all():") + 1
    assert "- [STRICT] checks.py (Tagger (whole)): RuntimeError: output index [0] large than the output size [0] of " \
           "node!\n     I5118 tensor-check-in-function-returning-none (reported in Tagger._validate at line " \
           f"{check}; MindSpore names no line)" in report, report
    assert "expected an indented block" not in report, report
