"""The score line of a graded Submit counts bugs the grader cannot judge yet apart from bugs not fixed, and
says why, never which bug."""

from __future__ import annotations

from types import SimpleNamespace

from app.grading.result import BugResult, GradeResult
from app.workspace.results import score_view


def _submit(status: str = "failed", score: float = 0.0) -> SimpleNamespace:
    return SimpleNamespace(kind="submit", status=status, score=score, hints_used={})


def test_bugs_the_grader_cannot_tell_yet_are_counted_apart():
    # Every planted bug's checks pass, but something else still fails: the three are "cannot tell yet".
    result = GradeResult(status="failed", scenario="cache-drift", version="v", kind="submit", bugs=[
        BugResult(id=b, component="generation", verdict="cannot_tell", reason="cannot tell yet: ...")
        for b in ("a", "b", "c")])
    view = score_view(_submit(), result)  # type: ignore[arg-type]
    assert view is not None
    assert (view.fixed, view.total, view.cannot_tell, view.undecided, view.points) == (0, 3, 3, 0, 0.0)


def test_a_plain_failure_has_no_cannot_tell():
    result = GradeResult(status="failed", scenario="warm-up", version="v", kind="submit", bugs=[
        BugResult(id="a", component="loss", fixed=True), BugResult(id="b", component="loss", verdict="not_fixed")])
    view = score_view(_submit(score=0.5), result)  # type: ignore[arg-type]
    assert view is not None
    assert (view.fixed, view.cannot_tell, view.points) == (1, 0, 50.0)
