"""Which planted bugs a submission fixed, the score, and regressions against the starter."""

from __future__ import annotations

from app.grading.result import TestResult

HINT_PENALTY = 0.15  # share of one bug's points lost per hint level used on it


def fixed_bugs(detected_by: dict[str, set[str]], failing: set[str]) -> dict[str, bool]:
    """A bug is fixed when every test its single-bug mutant fails now passes, except failures that a
    still-present bug explains.

    A bug is surely present when one of its distinctive tests (failed by no other bug's mutant)
    fails. A bug without distinctive tests is present when one of its tests fails that no surely
    present bug explains; such a bug counts as fixed only when all its tests pass (we cannot tell
    otherwise). A bug with distinctive tests, all passing, is fixed when each of its remaining
    failures is explained by another present bug.
    """
    def others(bug: str) -> set[str]:
        return set().union(*(tests for b, tests in detected_by.items() if b != bug))

    def explained(test: str, present: set[str], bug: str) -> bool:
        return any(test in detected_by[o] for o in present if o != bug)

    distinctive = {bug: tests - others(bug) for bug, tests in detected_by.items()}
    surely = {bug for bug, own in distinctive.items() if own & failing}
    present = set(surely)
    for bug, tests in detected_by.items():
        if not tests:
            present.add(bug)  # an undetectable bug can never be shown fixed
        elif not distinctive[bug] and any(not explained(t, surely, bug) for t in tests & failing):
            present.add(bug)
    return {
        bug: bool(tests) and bug not in present and (
            all(explained(t, present, bug) for t in tests & failing) if distinctive[bug]
            else not tests & failing)
        for bug, tests in detected_by.items()
    }


def score(fixed: dict[str, bool], hints_used: dict[str, int] | None) -> float:
    """fixed / total, each bug's share reduced by HINT_PENALTY per hint level used on it."""
    if not fixed:
        return 0.0
    hints_used = hints_used or {}
    share = 1.0 / len(fixed)
    total = sum(max(0.0, 1.0 - HINT_PENALTY * int(hints_used.get(bug, 0))) * share
                for bug, ok in fixed.items() if ok)
    return round(total, 4)


def regressions(tests: list[TestResult], starter_failing: list[str]) -> list[str]:
    """Tests the starter passed that now fail."""
    was_failing = set(starter_failing)
    return [t.id for t in tests if t.status == "failed" and t.id not in was_failing]
