"""generated/torch_habits.py (what PyTorch-style call forms do in graph code, measured by
scripts/measure_torch_habits.py from the forms of scripts/torch_forms.py) is plain data, still what the installed
MindSpore does, named by explain-error for every message it recorded, and the source of docs/pytorch-habits.md."""

import json
import os
import random
import subprocess
import sys

import pytest

from graphlint.analysis import torch_habits
from graphlint.analysis.generated import api_measured, torch_habits as generated
from graphlint.explain_error import explain, render
from scripts import measure_torch_habits as script
from tests import test_generated_tables as generated_tables
from tests.support import ROOT
from tests.test_generated_tables import mindspore_importable  # noqa: F401 - a fixture

HABITS = generated.HABITS
# The decoder habits of issue 42, always re-measured; a seeded sample of the other forms joins them.
KEY_FORMS = ("rank4:t.transpose(1, 2)", "rank4:t.split(1, dim=3)", "nn.CellDict attribute",
             "builtin:max(((x[0, 0, 0], 1), (x[0, 0, 1], 2)), key=lambda c: c[1])", "Cell.set_train",
             "rank4:t.index_add(-1, Tensor([0, 1], ms.int64), t * 0.5)")
SAMPLE_SIZE = 12
SAMPLE_SEED = 5
RECORDED = ("verdict", "lax", "strict", "spelling")


def test_table_is_literal_data_of_the_same_mindspore_as_the_other_tables():
    generated_tables.test_generated_module_is_literal_data("torch_habits")
    assert generated.MINDSPORE_VERSION == api_measured.MINDSPORE_VERSION


def test_every_measured_form_is_a_generated_one_and_the_counts_add_up():
    forms = script.load_forms()
    keys = {item["key"] for item in forms["forms"]}
    assert set(HABITS) <= keys
    counts = generated.COUNTS
    assert counts["measured_forms"] == len(HABITS) and counts["forms"] == len(forms["forms"])
    assert sum(counts["outcomes"].values()) == len(HABITS) == sum(counts["measured"].values())
    assert sum(counts["generated"].values()) == len(forms["forms"])
    assert counts["with_spelling"] == sum(1 for entry in HABITS.values() if entry["spelling"])
    for key in KEY_FORMS:
        assert key in HABITS, key


def test_the_issue_habits_measure_as_the_issue_says():
    """issue 42, compiled: transpose(1, 2) of a 4-D Tensor is refused ("number of axes"), split(n, dim=k) has
    no CPU kernel (SplitTensor), a CellDict entry read as an attribute is refused, max(..., key=) is refused."""
    assert HABITS["rank4:t.transpose(1, 2)"]["verdict"] == "refused"
    assert "number of axes must be equal" in HABITS["rank4:t.transpose(1, 2)"]["error"]
    assert HABITS["rank4:t.transpose(1, 2)"]["spelling"] == "t.swapaxes(1, 2)"
    split = HABITS["rank4:t.split(1, dim=3)"]
    assert split["verdict"] == "no CPU kernel" and "SplitTensor" in split["error"]
    assert split["spelling"] == "t.split(1, axis=3)"
    assert HABITS["nn.CellDict attribute"]["verdict"] == "refused"
    assert "Got an unexpected keyword argument 'key'" in HABITS[KEY_FORMS[3]]["error"]


def test_a_form_pynative_refuses_for_its_int64_index_is_measured_with_int32():
    """PYNATIVE_MODE's IndexAdd on CPU takes int32 indices only: the form is measured as a user whose PYNATIVE run
    failed would write it (int32, the source cut to the index's two entries along the dim), and graph mode has no
    CPU kernel for it at any rank (a Conv-TasNet port's overlap-add)."""
    for rank in (1, 2, 3, 4):
        index_add = HABITS[f"rank{rank}:t.index_add(-1, Tensor([0, 1], ms.int64), t * 0.5)"]
        assert index_add["torch"] == "t.index_add(-1, Tensor([0, 1], ms.int32), t[..., :2] * 0.5)"
        assert index_add["verdict"] == "no CPU kernel" and "IndexAddExt" in index_add["error"]
    assert HABITS["rank2:t.index_fill(1, Tensor([0, 1], ms.int64), 0.5)"]["verdict"] == "fine"


def test_a_habit_is_given_only_where_every_rank_agrees():
    split = torch_habits.habit(torch_habits.CallShape("tensor method", "split", 1, ("dim",)))
    assert split is not None and split.verdict == "no CPU kernel" and split.keyword_renames == (("dim", "axis"),)
    assert torch_habits.spelled("q.split(32, dim=2)", split) == "q.split(32, axis=2)"
    # transpose(a, b) is refused on a Tensor of rank 3 or more, and on a matrix it is read as a permutation
    # (the identity): another result at every rank, and swapaxes(a, b) gives PYNATIVE_MODE's at each.
    assert HABITS["rank2:t.transpose(0, 1)"]["verdict"] == "differs"
    assert HABITS["rank2:t.transpose(0, 1)"]["difference"] == "output: shape (4, 6) != (6, 4)"
    shape = torch_habits.CallShape("tensor method", "transpose", 2, ())
    transpose = torch_habits.habit(shape, (0, 1))
    assert transpose.method_rename == "swapaxes" and transpose.otherwise == "2"
    assert torch_habits.spelled("q.transpose(0, 1)", transpose) == "q.swapaxes(0, 1)"
    # the edit is the reported call's, not a call's inside it (`unsqueeze` is not renamed, an inner `dim=` stays)
    expand = torch_habits.Habit("t.expand((-1, 4))", "refused", "", method_rename="broadcast_to")
    assert torch_habits.spelled("c.unsqueeze(1).expand(s)", expand) == "c.unsqueeze(1).broadcast_to(s)"
    assert torch_habits.spelled("q.split(f(dim=2),\n    dim=2)", split) == "q.split(f(dim=2),\n    axis=2)"
    assert torch_habits.habit(shape, (1, 2)).method_rename == "swapaxes"
    # (1, 0) swaps a matrix's dims in graph mode too (MindSpore's permutation): fine at rank 2, so the rank
    # decides; and a run-time dim gives no row.
    assert HABITS["rank2:t.transpose(1, 0)"]["verdict"] == "fine"
    assert torch_habits.habit(shape, (1, 0)) is None and torch_habits.habit(shape, None) is None
    # t.max(1) differs in structure only (the divergence rules report it): not a habit of this table's rule.
    assert torch_habits.habit(torch_habits.CallShape("tensor method", "max", 1, ())) is None


def test_explain_error_names_the_form_for_every_recorded_message():
    messages = {}
    for key, entry in HABITS.items():
        if entry["error"] and entry["verdict"] not in ("fine", "pynative fails"):
            messages.setdefault(entry["error"], key)
    assert messages
    unnamed = []
    for message, key in sorted(messages.items()):
        result = explain(f"RuntimeError: {message}\n", lint=False)
        shown = render(result)
        if not result.habits or "PyTorch habit: `" not in shown or \
                HABITS[key]["torch"] not in {entry["torch"] for entry in result.habits}:
            unnamed.append((key, message))
    assert not unnamed, unnamed


def test_explain_error_names_split_and_its_spelling():
    log = ("RuntimeError: Kernel select failed:\nUnsupported op [SplitTensor] on CPU, Please confirm whether the "
           "device target setting is correct, or refer to 'mindspore.ops' at https://www.mindspore.cn\n")
    shown = render(explain(log, lint=False))
    assert "no MindSpore compile error found" not in shown
    assert "PyTorch habit: `t.split(" in shown and "use `t.split(" in shown and "axis=" in shown


def test_the_page_is_generated_from_the_table():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "pytorch_habits_doc.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(os.path.join(ROOT, "docs", "pytorch-habits.md"), encoding="utf-8") as handle:
        page = handle.read()
    assert "| `t.split(1, dim=3)` | 4 | no CPU kernel: Unsupported op [SplitTensor] on CPU" in page


def test_forms_name_their_source():
    forms = script.load_forms()
    assert forms["sources"]["mapping_rows"] > 500
    for item in forms["forms"]:
        assert item["source"], item["key"]
    by_kind = {}
    for item in forms["forms"]:
        by_kind[item["kind"]] = by_kind.get(item["kind"], 0) + 1
    assert {"tensor method", "function", "container", "cell method", "builtin", "list", "dict", "tuple", "str"} \
        <= set(by_kind)
    json.dumps(forms)  # plain data


@pytest.mark.compile
def test_a_sample_of_forms_still_measures_the_same(mindspore_importable):  # noqa: F811 - the fixture
    """Re-measure the key forms and a seeded sample of the others in one child process."""
    forms = {item["key"]: item for item in script.load_forms()["forms"]}
    others = sorted(set(HABITS) - set(KEY_FORMS))
    sample = list(KEY_FORMS) + random.Random(SAMPLE_SEED).sample(others, SAMPLE_SIZE)
    measured = script.measure([forms[key] for key in sample], log=lambda _: None, batch_size=len(sample))
    changed = {key: {field: (HABITS[key][field], measured[key][field]) for field in RECORDED
                     if HABITS[key][field] != measured[key][field]} for key in sample}
    changed = {key: fields for key, fields in changed.items() if fields}
    assert not changed, (f"the installed MindSpore behaves otherwise: {changed}; "
                         "rerun scripts/measure_torch_habits.py and review the diff")


CHECKED = '''\
import mindspore as ms
from mindspore import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sub = nn.Dense(3, 3)
        self.blocks = nn.CellDict({"proj": nn.Dense(3, 3)})
        self.sizes = (1, 2)

    def construct(self, x, axis):
        a = x.transpose(1, 0)
        b = x.transpose(0, axis)
        c = x.split(self.sizes, 1)
        for name, _ in self.sub.parameters_and_names():
            x = x + 1
        self.sub.set_grad(False)
        pairs = tuple(a + b for a, b in zip((x, x), (x, x), strict=True))
        d = "a b".split(" ", maxsplit=1)
        e = self.blocks.keys()
        return x.cumsum(dim=1), a, b, c, pairs, d, e, self.blocks.proj(x)
'''


def test_the_rules_report_at_the_call_what_every_rank_shows():
    from graphlint.config import Config
    from graphlint.lint import lint_text

    found = sorted((f.line, f.rule.id) for f in lint_text(CHECKED, Config()) if f.rule.id in ("E6005", "W6006"))
    # not reported: transpose(1, 0) (a matrix swaps its dims, rank 3 refuses: the rank decides), transpose with a
    # run-time dim, split with positional dims, a str's split(maxsplit=), CellDict.keys()
    assert found == [(16, "E6005"), (18, "W6006"), (19, "E6005"), (22, "E6005"), (22, "E6005")]
    messages = {f.line: f.message for f in lint_text(CHECKED, Config()) if f.rule.id == "E6005"}
    assert "write `x.cumsum(axis=1)`" in messages[22] or "write `self.blocks['proj']`" in messages[22]
    assert "Unsupported expression 'Yield'" in messages[16]


def test_rewrites_and_reports_cover_the_measured_forms():
    """Issue 42's figures, measured by benchmarks/torch_habit_rewrites.py (each form written into a Cell and linted):
    at least 70% of the forms with a measured spelling are rewritten by --fix, and the forms graph mode refuses,
    has no CPU kernel for, or computes otherwise are all reported at their line, each written as the module it was
    measured in (the line of the form, or for a form that computes otherwise the line that returns its value)."""
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import torch_habit_rewrites

    rewrites = torch_habit_rewrites.measure()
    assert rewrites["rewritten"] / rewrites["with_spelling"] >= 0.70, rewrites["missing"]
    assert "t.diag() (rank 2)" not in rewrites["missing"] and "t.argmax() (rank 3)" not in rewrites["missing"]
    # each rewrite writes the spelling the table measured, but E5210's pair form (`t.max(dim=1)`), which its own
    # catalogue fixtures compile and compare
    assert all(" -> t.max(dim=" in form or " -> t.min(dim=" in form
               for form in rewrites["not_the_measured_spelling"]), rewrites["not_the_measured_spelling"]
    reported = torch_habit_rewrites.measure_reported()
    assert reported["written"] == reported["wrong"] and reported["reported"] == reported["wrong"], reported["missing"]


def test_value_only_differences_of_random_draws_and_uninitialised_memory_are_not_wrong_forms():
    """A form whose graph-mode values differ from PYNATIVE_MODE's only because PYNATIVE_MODE itself draws them
    (another seed, other values: measured) or leaves them undefined (MindSpore's docstring) is no torch habit."""
    assert HABITS["rank2:t.log_normal()"]["verdict"] == "random"
    assert HABITS["rank2:ops.gumbel_softmax(t, dim=1)"]["verdict"] == "random"
    assert HABITS["rank2:mint.empty_like(t)"]["verdict"] == "undefined values"
    assert HABITS["rank2:t.transpose(0, 1)"]["verdict"] == "differs"  # a difference in shape stays one


ARITY = '''\
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(1, 16)

    def construct(self, x):
        return self.table.embedding_table.reshape(1, -1, 1, 1).expand(x.shape[0], -1, 8, 8)
'''


def test_a_form_refused_for_its_count_of_arguments_is_refused_at_every_rank():
    """`t.expand(b, -1, h, w)` on a 4-D Tensor: the table measured PyTorch's *size form at rank 2 ("The parameters
    number of the function is 2, but ..."), an error of the call's arity that holds at any rank."""
    from graphlint.config import Config
    from graphlint.lint import lint_text

    assert [(f.line, f.rule.id) for f in lint_text(ARITY, Config()) if f.rule.id == "E6005"] == [(10, "E6005")]
