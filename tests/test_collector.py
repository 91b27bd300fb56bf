"""The collector settings of one-shot runs: frozen trees and facts inside the command line's run, defaults outside."""

import gc
import json
import subprocess
import sys

from graphlint import collector


def test_one_shot_run_freezes_parsed_trees_and_restores_the_thresholds():
    before = gc.get_threshold()
    gc.unfreeze()
    collector.settle()
    assert gc.get_freeze_count() == 0  # a long-lived caller (server, Pylint, tests) frees replaced trees
    try:
        with collector.one_shot_run():
            assert gc.get_threshold()[0] == collector.YOUNG_THRESHOLD
            kept = [[] for _ in range(100)]
            collector.settle()
            assert gc.get_freeze_count() >= len(kept)
            with collector.frozen_for_fork():
                pass
            assert gc.get_freeze_count() >= len(kept)  # a one-shot run stays frozen after forking
    finally:
        gc.unfreeze()
    assert gc.get_threshold() == before
    with collector.frozen_for_fork():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_the_command_flushes_everything_before_its_fast_exit(tmp_path):
    body = "".join(f"        try:\n            x = x + {i}\n        except ValueError:\n            pass\n"
                   for i in range(300))
    (tmp_path / "many.py").write_text("from mindspore import nn\n\n\nclass Net(nn.Cell):\n"
                                      f"    def construct(self, x):\n{body}        return x\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", "from graphlint.cli import run; run()", "--no-cache",
                           "--output-format", "json", str(tmp_path / "many.py")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    assert sorted({f["line"] for f in findings if f["id"] == "E5101"}) == [6 + 4 * i for i in range(300)]
