"""Which planted bugs a submission fixed, the score, and regressions against the starter."""

from __future__ import annotations

from typing import Any

HINT_PENALTY = 0.15  # share of one bug's points lost per hint level used on it


def fixed_bugs(detected_by: dict[str, set[str]], failing: set[str]) -> dict[str, bool]:
    """A bug is fixed when every test its single-bug mutant fails now passes, except failures that a
    still-present bug explains: a test shared with another bug whose own distinctive tests still fail."""
    distinctive = {
        bug: tests - set().union(*(other for b, other in detected_by.items() if b != bug))
        for bug, tests in detected_by.items()
    }
    still_broken = {bug for bug, own in distinctive.items() if own & failing}
    result = {}
    for bug, tests in detected_by.items():
        unexplained = {
            t for t in tests & failing
            if not any(t in detected_by[other] for other in still_broken if other != bug)
        }
        if not tests:
            result[bug] = False  # an undetectable bug cannot be shown fixed
        elif distinctive[bug]:
            result[bug] = bug not in still_broken and not unexplained
        else:
            result[bug] = not (tests & failing)
    return result


def score(fixed: dict[str, bool], hints_used: dict[str, int] | None) -> float:
    """fixed / total, each bug's share reduced by HINT_PENALTY per hint level used on it."""
    if not fixed:
        return 0.0
    hints_used = hints_used or {}
    share = 1.0 / len(fixed)
    total = sum(max(0.0, 1.0 - HINT_PENALTY * int(hints_used.get(bug, 0))) * share
                for bug, ok in fixed.items() if ok)
    return round(total, 4)


def regressions(tests: list[dict[str, Any]], starter_failing: list[str]) -> list[str]:
    """Tests the starter passed that now fail."""
    was_failing = set(starter_failing)
    return [t["id"] for t in tests if not t["passed"] and t["id"] not in was_failing]
