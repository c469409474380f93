"""What the Results panel shows for one attempt, shaped for who looks at it.

Candidates see hidden tests only as "Hidden check passed/failed/not run" under their component, never
a test id, a bug id or anything that names the fix; interviewers and admins see the real ids. A test that
was not run (an unmet interface item, a crashed training run) is counted apart from the failures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt, AttemptStatus
from app.attempts.views import ShownTest, candidate_tests
from app.coaching import service as coaching_service
from app.coaching.tip import ShownTip
from app.core.db import as_utc, utcnow
from app.grading.result import COMPONENTS, GradeError, GradeResult, ScratchOutput, TestResult, TrainingSummary
from app.workspace import charts

TIPS_WAIT = timedelta(seconds=10)
STATUS_LABELS = {"queued": "Queued", "running": "Running", "passed": "Passed", "failed": "Failed",
                 "error": "Error", "cancelled": "Cancelled"}
COMPONENT_TITLES = {"loss": "Loss", "positional": "Positional", "attention": "Attention", "general": "General",
                    "training": "Training run", "generation": "Generation"}
STAGES = {
    "reference": "Preparing the reference run (the first gradings of this challenge wait for it)",
    "sandbox": "Starting the sandbox",
    "importing": "Importing your code",
    "probe": "Probe",
    "training": "Tiny training run",
    "leak-probe": "Random-token leak probe",
    "checking": "Checking the measurements",
}


@dataclass(frozen=True)
class Progress:
    text: str
    value: int | None = None
    maximum: int | None = None
    ahead: int | None = None  # queued attempts ahead of this one, while it waits for a grader


@dataclass(frozen=True)
class ComponentRow:
    component: str
    title: str
    passed: int
    failed: int
    tests: list[ShownTest]  # the candidate's view of each test, or for staff every test under its own id
    not_run: int = 0
    # The reasons hidden tests were not run, each with how many (candidates read one line per reason).
    hidden_not_run: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class ResultsView:
    attempt: Attempt
    status_label: str
    in_flight: bool
    progress: Progress | None = None
    error: GradeError | None = None
    error_location: tuple[str, int] | None = None
    components: list[ComponentRow] = field(default_factory=list)
    chart: charts.LossChart | None = None
    heatmaps: list[charts.Heatmap] = field(default_factory=list)
    cache: charts.CacheCharts | None = None  # interfaces with a KV cache: cached against full forward
    training: TrainingSummary | None = None  # for the headline numbers and samples
    regressions: list[str] = field(default_factory=list)
    tips: list[ShownTip] = field(default_factory=list)
    scratch: ScratchOutput | None = None  # what a scratch run printed
    awaiting_tips: bool = False  # just finished: the coach writes its tips a moment after the verdict

    @property
    def keep_polling(self) -> bool:
        return self.in_flight or self.awaiting_tips


def queue_position(*, session: Session, attempt: Attempt) -> int:
    """How many queued attempts were created before this one (grading is first come, first served)."""
    return session.scalar(select(func.count(Attempt.id)).where(
        Attempt.status == AttemptStatus.queued.value, Attempt.id < attempt.id)) or 0


@dataclass(frozen=True)
class StageReport:
    """The grader's last progress report stored on the attempt (the sandbox's sanitised {stage, name, k, n});
    `stage` is None before the first one."""

    stage: str | None = None
    k: int | None = None
    n: int | None = None

    @classmethod
    def from_stored(cls, data: Mapping[str, object] | None) -> StageReport:
        data = data or {}
        stage, k, n = data.get("stage"), data.get("k"), data.get("n")
        return cls(stage=None if stage is None else str(stage), k=k if isinstance(k, int) else None,
                   n=n if isinstance(n, int) else None)


def progress_of(*, session: Session, attempt: Attempt) -> Progress:
    report = StageReport.from_stored(attempt.progress)
    if attempt.status == AttemptStatus.queued.value and report.stage != "reference":
        ahead = queue_position(session=session, attempt=attempt)
        return Progress("Waiting for a grader: " + ("yours is next." if ahead == 0 else f"{ahead} ahead of yours."),
                        ahead=ahead)
    stage = "sandbox" if report.stage is None else report.stage
    text = STAGES.get(stage, "Grading")
    if report.k is not None and report.n is not None and report.n > 0:
        unit = "step" if stage == "training" else ""
        return Progress(f"{text}: {unit} {report.k} of {report.n}".replace(":  ", ": "), value=report.k,
                        maximum=report.n)
    return Progress(text)


def build_view(*, session: Session, attempt: Attempt, staff: bool) -> ResultsView:
    """The panel for one attempt: progress while it waits or runs, the verdicts afterwards."""
    view = ResultsView(attempt=attempt, status_label=STATUS_LABELS.get(attempt.status, attempt.status),
                       in_flight=attempt.status in ("queued", "running"))
    if view.in_flight:
        view.progress = progress_of(session=session, attempt=attempt)
        return view
    result = GradeResult.from_stored(attempt.result)
    view.error = GradeError.model_validate(attempt.error) if attempt.error else None
    view.error_location = view.error.location if view.error else None
    view.tips = coaching_service.tips_of(session=session, attempt_id=attempt.id)
    view.awaiting_tips = tips_still_coming(kind=attempt.kind, status=attempt.status, finished_at=attempt.finished_at,
                                           has_tips=bool(view.tips))
    if result is None:
        return view
    view.scratch = result.scratch
    shown = [_staff_row(t) for t in result.tests] if staff else candidate_tests(result.tests)
    for component in COMPONENTS:
        tests = [t for t in shown if t["component"] == component]
        if tests:
            view.components.append(_component_row(component, tests))
    view.regressions = _regressions(result, staff)
    if result.training is not None:
        view.training = result.training
        view.chart = charts.loss_chart(result.training)
        view.heatmaps = charts.heatmaps(result.training)
        view.cache = charts.cache_charts(result.training)
    return view


def tips_still_coming(*, kind: str, status: str, finished_at: datetime | None, has_tips: bool) -> bool:
    """The coach runs right after the verdict is stored; keep polling briefly so its tips show up.
    (Also part of the panel's validator, app/attempts/etag.py.)"""
    if has_tips or kind == "scratch" or status == AttemptStatus.cancelled.value:
        return False
    return finished_at is not None and utcnow() - as_utc(finished_at) < TIPS_WAIT


def _staff_row(test: TestResult) -> ShownTest:
    """Staff read every test under its own id and message, hidden ones marked as such."""
    return ShownTest(id=test.id, component=test.component, passed=test.passed, status=test.status,
                     reason=test.reason, message=test.message, hidden=not test.public)


def _component_row(component: str, tests: list[ShownTest]) -> ComponentRow:
    """Counts by status; a test that did not apply to this code was never a failure."""
    count = {status: sum(1 for t in tests if t["status"] == status) for status in ("failed", "not_run")}
    reasons = Counter(t["reason"] or "something it relies on is missing"
                      for t in tests if t["hidden"] and t["status"] == "not_run")
    return ComponentRow(component=component, title=COMPONENT_TITLES[component], tests=tests,
                        passed=len(tests) - count["failed"] - count["not_run"], failed=count["failed"],
                        not_run=count["not_run"], hidden_not_run=list(reasons.items()))


def _regressions(result: GradeResult, staff: bool) -> list[str]:
    """Checks the starter passed that now fail: named for staff and for public tests, else by component."""
    by_id = {t.id: t for t in result.tests}
    named = []
    for test_id in result.regressions:
        test = by_id.get(test_id)
        if staff or (test is not None and test.public):
            named.append(test_id)
        elif test is not None:
            named.append(f"a hidden {COMPONENT_TITLES.get(test.component, test.component).lower()} check")
    return named
