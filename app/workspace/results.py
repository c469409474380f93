"""What the Results panel shows for one attempt, shaped for who looks at it.

Candidates see hidden tests only as "Hidden check passed/failed/not run" under their component, never
a test id, a bug id or anything that names the fix; interviewers and admins see the real ids. A test that
was not run (an unmet interface item, a crashed training run) is counted apart from the failures.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.attempts import numbers
from app.attempts.models import Attempt, AttemptStatus
from app.attempts.points import POINTS_TOTAL, points
from app.attempts.staff_verdict import hidden_note
from app.attempts.views import COMPONENT_TITLES, ShownTest, ShownVerdict, candidate_tests, verdict_of
from app.coaching import service as coaching_service
from app.coaching.tip import ShownTip
from app.core.db import as_utc, utcnow
from app.grading.result import COMPONENTS, GradeError, GradeResult, ScratchOutput, TestResult, TrainingSummary
from app.grading.scoring import HINT_PENALTY
from app.workspace import charts

TIPS_WAIT = timedelta(seconds=10)
STATUS_LABELS = {"queued": "Queued", "running": "Running", "passed": "Passed", "failed": "Failed",
                 "error": "Error", "cancelled": "Cancelled"}
# The headline of an error, by GradeError.kind; the message follows it, once.
ERROR_TITLES = {"syntax": "Syntax error", "import": "Import error", "crash": "Your code raised an error",
                "timeout": "Time limit reached", "memory": "Memory limit reached", "output": "Output limit reached",
                "sandbox": "The grader could not run your code"}
# The harness ends a message with the deepest frame in the candidate's files: "... (model.py:42)".
_FRAME = re.compile(r"\s*\((?P<file>[\w.-]+\.py):(?P<line>\d+)\)")
# Python's own SyntaxError text repeats the place: "invalid syntax (model.py, line 153)".
_PY_PLACE = re.compile(r"\s*\((?P<file>[\w.-]+\.py), line (?P<line>\d+)\)")
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
class Located:
    """A message with the place in the candidate's files it names (the page links it to the editor's line),
    the place taken out of the text so it is said once."""

    text: str
    file: str | None = None
    line: int | None = None


def located(message: str) -> Located:
    """Split "NameError: x is not defined (model.py:42)" into its text and (model.py, 42); the last frame
    named wins (the deepest). Python's own "(model.py, line 42)" of a SyntaxError goes too."""
    frames = list(_FRAME.finditer(message)) or list(_PY_PLACE.finditer(message))
    if not frames:
        return Located(text=message)
    last = frames[-1]
    text = _PY_PLACE.sub("", _FRAME.sub("", message)).strip()
    return Located(text=text, file=last["file"], line=int(last["line"]))


@dataclass(frozen=True)
class Symptom:
    """One line under a component: what a check saw, a place to jump to when it names one."""

    text: str
    not_run: bool = False
    test_id: str | None = None  # staff only
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class ScoreView:
    """What a graded Submit is worth, as the candidate reads it: counts, never which bug."""

    fixed: int
    total: int
    undecided: int  # bugs that could not be judged (a check not run) or whose verdict is still being computed
    # bugs whose checks pass but may be hidden by something else that still fails ("cannot tell yet")
    cannot_tell: int
    provisional: bool  # the version's bug x test matrix is still being computed
    points: float
    hint_deduction: float  # points the hints taken on fixed bugs cost this submit
    points_total: int = POINTS_TOTAL


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
    symptoms: list[Symptom] = field(default_factory=list)


@dataclass
class ResultsView:
    attempt: Attempt
    status_label: str
    in_flight: bool
    number: int  # the attempt's number in its workspace ("Run 3"), never its database id
    progress: Progress | None = None
    error: GradeError | None = None
    error_location: tuple[str, int] | None = None
    error_title: str = ""
    error_text: str = ""  # the message without the place the link names
    verdict: ShownVerdict | None = None
    # Staff only, for a Run: what its hidden checks found (the candidate's verdict reads the public ones, while
    # the staff table lists every check, so the line between them says why a "Passed" sits above failures).
    hidden_note: str = ""
    score: ScoreView | None = None  # a graded Submit
    training_error: Located | None = None
    components: list[ComponentRow] = field(default_factory=list)
    chart: charts.LossChart | None = None
    heatmaps: list[charts.Heatmap] = field(default_factory=list)
    cache: charts.CacheCharts | None = None  # interfaces with a KV cache: cached against full forward
    pipeline: list[charts.PipelineChart] = field(default_factory=list)  # pipeline-v1: accumulation, lr, resume
    training: TrainingSummary | None = None  # for the headline numbers and samples
    regressions: list[str] = field(default_factory=list)
    tips: list[ShownTip] = field(default_factory=list)
    scratch: ScratchOutput | None = None  # what a scratch run printed
    awaiting_tips: bool = False  # just finished: the coach writes its tips a moment after the verdict

    @property
    def keep_polling(self) -> bool:
        return self.in_flight or self.awaiting_tips

    @property
    def name(self) -> str:
        """"Run 3", "Submit 4", "Scratch run 5"."""
        return numbers.attempt_name(self.attempt.kind, self.number)


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


def build_view(*, session: Session, attempt: Attempt, staff: bool, number: int | None = None) -> ResultsView:
    """The panel for one attempt: progress while it waits or runs, the verdicts afterwards. `number` is the
    attempt's number in its workspace when the caller knows it (else it is counted here)."""
    view = ResultsView(attempt=attempt, status_label=STATUS_LABELS.get(attempt.status, attempt.status),
                       in_flight=attempt.status in ("queued", "running"),
                       number=number if number is not None else numbers.number_of(session=session, attempt=attempt))
    if view.in_flight:
        view.progress = progress_of(session=session, attempt=attempt)
        return view
    result = GradeResult.from_stored(attempt.result)
    view.verdict = verdict_of(attempt, result)
    view.status_label = STATUS_LABELS.get(view.verdict["status"], view.status_label)
    view.error = GradeError.model_validate(attempt.error) if attempt.error else None
    if view.error:
        where = located(view.error.message)
        view.error_title = ERROR_TITLES.get(view.error.kind, view.error.kind.capitalize() + " error")
        # "Syntax error: SyntaxError: ..." says it twice; other exception names (IndentationError) add something.
        view.error_text = where.text.removeprefix("SyntaxError: ") if view.error.kind == "syntax" else where.text
        view.error_location = (where.file, where.line) if where.file and where.line else None
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
            places = [] if staff else _raised_at(result.tests, component)
            view.components.append(_component_row(component, tests, staff, places))
    view.regressions = _regressions(result, staff)
    if staff and view.verdict["checks"] == "public":
        view.hidden_note = hidden_note(stored_status=attempt.status, result=result)
    view.score = score_view(attempt, result)
    view.pipeline = charts.pipeline_charts(result.pipeline)
    if result.training is not None:
        view.training = result.training
        view.training_error = located(result.training.error) if result.training.error else None
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


def score_view(attempt: Attempt, result: GradeResult) -> ScoreView | None:
    """The points of a graded Submit, its bugs fixed out of all, and what its hints cost (in points)."""
    if attempt.kind != "submit" or attempt.status not in ("passed", "failed") or not result.bugs:
        return None
    share = POINTS_TOTAL / len(result.bugs)
    used = attempt.hints_used or {}
    deduction = sum(min(1.0, HINT_PENALTY * int(used.get(b.id, 0))) * share for b in result.bugs if b.fixed)
    undecided = sum(1 for b in result.bugs if not b.fixed and (not b.verifiable or result.provisional))
    cannot_tell = sum(1 for b in result.bugs if b.verdict == "cannot_tell" and not result.provisional)
    return ScoreView(fixed=sum(1 for b in result.bugs if b.fixed), total=len(result.bugs), undecided=undecided,
                     cannot_tell=cannot_tell,
                     provisional=result.provisional, points=points(attempt.score) or 0.0,
                     hint_deduction=round(deduction, 1))


def _raised_at(tests: list[TestResult], component: str) -> list[tuple[str, int]]:
    """Where the candidate's own code raised in this component's failed hidden checks: the place in their files
    only (never the check's id or message), so a crash seen only by hidden checks still links to its line."""
    places = []
    for test in tests:
        if test.component == component and not test.public and test.status == "failed":
            where = located(test.message)
            if where.file and where.line and (where.file, where.line) not in places:
                places.append((where.file, where.line))
    return places


def _component_row(component: str, tests: list[ShownTest], staff: bool,
                   raised_at: list[tuple[str, int]] | None = None) -> ComponentRow:
    """Counts by status; a test that did not apply to this code was never a failure."""
    count = {status: sum(1 for t in tests if t["status"] == status) for status in ("failed", "not_run")}
    reasons = Counter(t["reason"] or "something it relies on is missing"
                      for t in tests if t["hidden"] and t["status"] == "not_run")
    return ComponentRow(component=component, title=COMPONENT_TITLES[component], tests=tests,
                        passed=len(tests) - count["failed"] - count["not_run"], failed=count["failed"],
                        not_run=count["not_run"], hidden_not_run=list(reasons.items()),
                        symptoms=_symptoms(tests, list(reasons.items()), staff, raised_at or []))


def _symptoms(tests: list[ShownTest], hidden_not_run: list[tuple[str, int]], staff: bool,
              raised_at: list[tuple[str, int]]) -> list[Symptom]:
    """What the checks of one component saw, failures first: shown tests by their message (with the place in
    the candidate's files it names), hidden ones as counts (staff rows are never hidden here)."""
    out: list[Symptom] = []
    failing = [t for t in tests if t["status"] == "failed"]
    not_run = [t for t in tests if t["status"] == "not_run"]
    for test in failing:
        if not test["hidden"] or staff:
            where = located(test["message"])
            out.append(Symptom(text=where.text, test_id=test["id"] if staff else None, file=where.file,
                               line=where.line))
    hidden_failing = sum(1 for t in failing if t["hidden"]) if not staff else 0
    if hidden_failing:
        out.append(Symptom(text=f"{hidden_failing} hidden check{'s' if hidden_failing != 1 else ''} failed"))
        out.extend(Symptom(text="A hidden check saw your code raise an error at", file=file, line=line)
                   for file, line in raised_at)
    for test in not_run:
        if not test["hidden"] or staff:
            out.append(Symptom(text=test["message"], not_run=True, test_id=test["id"] if staff else None))
    if not staff:
        out.extend(Symptom(text=f"{n} hidden check{'s' if n != 1 else ''} not run: {reason}", not_run=True)
                   for reason, n in hidden_not_run)
    return out


def _regressions(result: GradeResult, staff: bool) -> list[str]:
    """Checks the starter passed that now fail: named for staff and for public tests, else by component."""
    by_id = {t.id: t for t in result.tests}
    named = []
    hidden: Counter[str] = Counter()  # hidden ones counted by component: "3 hidden generation checks"
    for test_id in result.regressions:
        test = by_id.get(test_id)
        if staff or (test is not None and test.public):
            named.append(test_id)
        elif test is not None:
            hidden[COMPONENT_TITLES.get(test.component, test.component).lower()] += 1
    named.extend(f"a hidden {c} check" if n == 1 else f"{n} hidden {c} checks" for c, n in hidden.items())
    return named
