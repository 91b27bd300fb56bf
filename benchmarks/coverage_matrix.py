"""Recall and false errors of graphlint on its coverage matrix (graphlint/catalogue/matrix.py).

Prints, per level, how many measured cells fail, how many of those graphlint reports at error severity, and how
many compiling cells it reports at error severity, from the stored measurements (no MindSpore needed).
Run: python benchmarks/coverage_matrix.py [--misses]
"""

import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.test_matrix import verdicts  # noqa: E402


def main(argv) -> int:
    results = verdicts()
    failing, caught, compiling, false_errors, diverging, noticed = (Counter() for _ in range(6))
    misses = []
    for cell, level, outcome, errors, every in results:
        if outcome in ("fails", "crashes"):
            failing[level] += 1
            caught[level] += bool(errors)
            if not errors:
                misses.append(f"{cell.key} {level}")
        elif outcome == "ok":
            compiling[level] += 1
            false_errors[level] += bool(errors)
        elif outcome == "diverges":
            diverging[level] += 1
            noticed[level] += bool(every)
    print(f"{'level':8} {'failing':>8} {'reported':>9} {'recall':>7} {'compiling':>10} {'false errors':>13} "
          f"{'diverging':>10} {'noticed':>8}")
    for level in ("lax", "strict", "export"):
        recall = caught[level] / failing[level] if failing[level] else 1.0
        print(f"{level:8} {failing[level]:8} {caught[level]:9} {recall:7.3f} {compiling[level]:10} "
              f"{false_errors[level]:13} {diverging[level]:10} {noticed[level]:8}")
    total_failing, total_caught = sum(failing.values()), sum(caught.values())
    print(f"all levels: recall {total_caught / max(total_failing, 1):.3f} ({total_caught}/{total_failing}), "
          f"false errors {sum(false_errors.values())}/{sum(compiling.values())}")
    if "--misses" in argv:
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
