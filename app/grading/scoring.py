"""Which planted bugs a submission fixed, the score, and regressions against the starter.

A bug's tests can pass while the bug is still there, because another bug hides them (label-trouble's
starter passes the tests of two of its four bugs), and several bugs can fail the same tests. So a
verdict is read from every combination of planted bugs the submission could be ("worlds"): what each
combination fails is known exactly for the solution, each single-bug mutant and the starter, and
otherwise predicted from the mutants; a test that some combination is known to hide (it passes in the
starter, or in a masking pair, although a mutant fails it) predicts nothing, nor does a test of a
trained quantity (a leak, a final loss) in a combination never measured. A bug is fixed when no
world that agrees with the observed tests contains it, not fixed when every such world does, and
"cannot tell yet" otherwise; only fixed bugs score. A submission that fails tests no combination of
planted bugs explains has changed something else, which can hide a bug as well as any planted one:
its bugs are "not fixed" where a distinctive test fails and "cannot tell yet" otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from app.engine.validator import AGGREGATE_TESTS, ValidationReport
from app.grading.result import BugResult, BugVerdict, GradeError, TestResult

MAX_WORLD_BUGS = 12  # 2**12 combinations; beyond that only the distinctive-test rule decides
# Tests whose failure only withholds evidence: the tests that need what failed are not run (so they are no
# evidence either way); they cannot make another test pass, so such a failure hides no bug.
GATE_TESTS = frozenset({"general.interface", "training.runs"})

HINT_PENALTY = 0.15  # share of one bug's points lost per hint level used on it


@dataclass(frozen=True)
class Matrix:
    """What validation measured: each bug's tests (as they ran here), the starter's failures, the pairs."""

    detected_by: dict[str, frozenset[str]]
    starter_failing: frozenset[str]
    # (pair, tests the two pass together although each fails them alone; None: the pair fails nothing)
    pairs: dict[frozenset[str], frozenset[str] | None]

    @classmethod
    def from_report(cls, report: ValidationReport, evidence: set[str]) -> Matrix:
        return cls(detected_by={b.id: frozenset(b.detected_by) & evidence for b in report.bugs},
                   starter_failing=frozenset(report.starter_failing) & evidence,
                   pairs={frozenset(m.bugs): (None if m.pair_fails_nothing else frozenset(m.tests_passing_together))
                          for m in report.masking})

    def maskable(self) -> set[str]:
        """Tests some combination of bugs is known to hide although a bug's mutant fails them."""
        caught = set().union(*self.detected_by.values()) if self.detected_by else set()
        # A starter that failed nothing here (or did not run) says nothing about hiding.
        hidden = caught - self.starter_failing if self.starter_failing else set()
        for pair, tests in self.pairs.items():
            hidden |= set().union(*(self.detected_by[b] for b in pair if b in self.detected_by)) \
                if tests is None else set(tests)
        return hidden

    def predicts(self, world: frozenset[str], test: str, maskable: set[str]) -> bool | None:
        """Does the solution with `world`'s bugs planted fail `test`? None: not known."""
        if not world:
            return False
        if len(world) == 1:
            return test in self.detected_by[next(iter(world))]
        if world == frozenset(self.detected_by) and self.starter_failing:
            return test in self.starter_failing
        if world in self.pairs:
            hidden = self.pairs[world]
            if hidden is None or test in hidden:
                return False
        elif test in AGGREGATE_TESTS and sum(1 for b in world if self.detected_by[b]) > 1:
            # A trained quantity against a threshold (a leak, a final loss): several bugs together can push
            # it either way, so an unmeasured combination of bugs seen in this grading predicts nothing
            # (attention-zoo's three bugs without mask-after-softmax leak less than one of them alone).
            return None
        if not any(test in self.detected_by[b] for b in world):
            return None if test in AGGREGATE_TESTS else False
        return None if test in maskable else True


def _agrees(matrix: Matrix, world: frozenset[str], observed: dict[str, bool], maskable: set[str],
            explain_all: bool) -> bool:
    for test, failed in observed.items():
        predicted = matrix.predicts(world, test, maskable)
        if predicted is None or predicted == failed:
            continue
        if failed and not explain_all and not any(test in matrix.detected_by[b] for b in world):
            continue  # a failure no planted bug explains: the submission changed something else
        return False
    return True


def _worlds(bugs: list[str]) -> Iterable[frozenset[str]]:
    for size in range(len(bugs) + 1):
        for combo in combinations(bugs, size):
            yield frozenset(combo)


def judge_bugs(matrix: Matrix, observed: dict[str, bool]) -> dict[str, BugVerdict]:
    """Each bug's verdict from the observed tests (test id -> failed), tests that ran only."""
    bugs = list(matrix.detected_by)
    verdicts: dict[str, BugVerdict] = {b: "not_verifiable" for b in bugs if not matrix.detected_by[b]}
    judged = [b for b in bugs if b not in verdicts]
    failing = {t for t, failed in observed.items() if failed}
    distinctive = {b: matrix.detected_by[b] - set().union(*(matrix.detected_by[o] for o in bugs if o != b))
                   for b in judged}
    surely_present = {b for b in judged if distinctive[b] & failing}
    if len(bugs) > MAX_WORLD_BUGS:
        for b in judged:
            verdicts[b] = "not_fixed" if b in surely_present else "cannot_tell"
        return verdicts
    maskable = matrix.maskable()
    caught = set().union(*matrix.detected_by.values())
    observed = {t: f for t, f in observed.items() if not (f and t in GATE_TESTS and t not in caught)}
    # Unjudgeable bugs may be present or not: every world lets them be either.
    consistent = [w for w in _worlds(bugs) if _agrees(matrix, w, observed, maskable, explain_all=True)]
    exact = bool(consistent)
    if not exact:  # the submission is no combination of planted bugs (it changed something else too)
        consistent = [w for w in _worlds(bugs) if _agrees(matrix, w, observed, maskable, explain_all=False)]
    for b in judged:
        if b in surely_present or (exact and all(b in w for w in consistent)):
            verdicts[b] = "not_fixed"
        elif exact and not any(b in w for w in consistent):
            verdicts[b] = "fixed"
        else:
            # Not exact: the submission changed something besides the planted bugs, and such a change can
            # hide them (a model whose logits are all zero passes every cache test), so a bug's passing
            # tests are no evidence of its fix until the other change is undone.
            verdicts[b] = "cannot_tell"
    return verdicts


def bug_verdicts(report: ValidationReport, verdicts: list[TestResult] | None,
                 error: GradeError | None = None) -> list[BugResult]:
    """Planted bugs with their verdict and, when not judged, the reason. Only tests that ran and apply
    to this candidate are evidence: a bug seen only by tests that were not run (unmet interface, crashed
    training run) or do not apply is unverifiable, and so never fixed."""
    if verdicts is None:
        why = f"the submission could not be graded ({error.kind}: {error.message})" if error else None
        return [BugResult(id=b.id, component=b.component, title=b.title, fixed=False, verifiable=False,
                          verdict="not_verifiable", reason=why) for b in report.bugs]
    by_id = {v.id: v for v in verdicts}
    observed = {v.id: v.status == "failed" for v in verdicts if v.status in ("passed", "failed")}
    matrix = Matrix.from_report(report, set(observed))
    judged = judge_bugs(matrix, observed)
    titles = {b.id: b.title or b.id for b in report.bugs}
    out = []
    for b in report.bugs:
        verdict, reason = judged[b.id], None
        if verdict == "not_verifiable":
            skipped = [by_id[t].reason for t in b.detected_by
                       if t in by_id and by_id[t].status == "not_run" and by_id[t].reason]
            reason = (f"its tests were not run: {skipped[0]}" if skipped
                      else "the tests that detect it do not apply to how this submission is written")
        elif verdict == "cannot_tell":
            open_bugs = [titles[o] for o, v in judged.items() if o != b.id and v != "fixed"]
            reason = ("cannot tell yet: the tests that catch it are also failed or hidden by "
                      + (", ".join(open_bugs) if open_bugs else "a change outside the planted bugs")
                      + ", still there; it is judged once they are fixed")
        out.append(BugResult(id=b.id, component=b.component, title=b.title, fixed=verdict == "fixed",
                             verifiable=verdict != "not_verifiable", verdict=verdict, reason=reason))
    return out


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
