"""Everything the review page shows about one interview, assembled once from the stored rows.

The per-bug timeline is a row per planted bug and a column per graded attempt (run or submit) in
time order; each attempt carries its result, its diffs against the previous attempt and the starter,
its notes and the tips the candidate saw. Hints come with their time and cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts import numbers
from app.attempts.models import Attempt, AttemptKind
from app.attempts.staff_verdict import StaffVerdict, staff_verdict
from app.coaching import service as coaching_service
from app.coaching.tip import ShownTip
from app.core.db import as_utc
from app.engine.package import ScenarioPackage
from app.grading.result import GradeResult
from app.grading.scoring import HINT_PENALTY
from app.interviews import state as state_module
from app.interviews.models import Interview
from app.scenarios import service as scenarios_service
from app.scenarios.models import ScenarioVersion
from app.workspace.history import FileDiff, diff_files
from app.workspace.models import HintReveal, scope_for

GRADED = (AttemptKind.run.value, AttemptKind.submit.value)
CELL_LABELS = {"fixed": "fixed", "not_fixed": "not fixed", "cannot_tell": "cannot tell yet",
               "not_verifiable": "not verifiable", "none": "no result"}


@dataclass
class AttemptEntry:
    attempt: Attempt
    number: int  # 1-based, in time order, over every kind: the candidate's History numbers it the same
    offset: timedelta | None  # since the interview started
    result: GradeResult | None
    verdict: StaffVerdict  # a Run's is its public checks' (as the candidate read it) with its hidden checks beside
    tips: list[ShownTip]
    diff_previous: list[FileDiff]
    previous_number: int | None
    diff_starter: list[FileDiff]
    previous_name: str | None = None  # "Submit 2": the attempt just before, named as the pages name it

    @property
    def graded(self) -> bool:
        return self.attempt.kind in GRADED

    @property
    def name(self) -> str:
        """ "Run 3", "Submit 4", "Scratch run 5"."""
        return numbers.attempt_name(self.attempt.kind, self.number)

    def cell(self, bug_id: str) -> str:
        """fixed | not_fixed | cannot_tell | not_verifiable | none (no verdict: queued, running or errored
        without one). "cannot tell yet": another bug still there fails or hides the same tests."""
        for bug in self.result.bugs if self.result else []:
            if bug.id == bug_id:
                return bug.verdict
        return "none"


@dataclass(frozen=True)
class BugInfo:
    id: str
    title: str
    component: str


@dataclass(frozen=True)
class HintTaken:
    bug_id: str
    bug_title: str
    level: int
    revealed_at: datetime
    offset: timedelta | None
    cost_points: float  # out of 100


@dataclass
class InterviewRecord:
    interview: Interview
    version: ScenarioVersion
    slug: str
    package: ScenarioPackage
    state: state_module.State
    time_used: timedelta | None
    attempts: list[AttemptEntry] = field(default_factory=list)
    hints: list[HintTaken] = field(default_factory=list)

    @property
    def bugs(self) -> list[BugInfo]:
        return [BugInfo(id=b.id, title=b.title, component=b.component) for b in self.package.bugs]

    @property
    def columns(self) -> list[AttemptEntry]:
        """The timeline's columns: graded attempts in time order."""
        return [entry for entry in self.attempts if entry.graded]

    @property
    def questions(self) -> dict[str, str]:
        return {str(q["id"]): str(q.get("text", q["id"])) for q in self.package.questions}

    @property
    def latest_submit(self) -> AttemptEntry | None:
        finished = [e for e in self.attempts if e.attempt.kind == AttemptKind.submit.value and e.result]
        return finished[-1] if finished else None

    @property
    def hint_cost(self) -> float:
        return round(sum(h.cost_points for h in self.hints), 2)

    def fixed_count(self, entry: AttemptEntry | None) -> int:
        return sum(1 for b in (entry.result.bugs if entry and entry.result else []) if b.fixed)


def offset_from(start: datetime | None, moment: datetime) -> timedelta | None:
    return as_utc(moment) - as_utc(start) if start is not None else None


def interview_attempts(*, session: Session, interview_id: int) -> list[Attempt]:
    return list(session.scalars(
        select(Attempt).where(Attempt.interview_id == interview_id).order_by(Attempt.created_at, Attempt.id)))


def hints_taken(*, session: Session, interview: Interview, package: ScenarioPackage) -> list[HintTaken]:
    """The hints the candidate revealed in this interview, in order, with the score each one cost."""
    rows = session.scalars(
        select(HintReveal).where(HintReveal.scope == scope_for(interview.id),
                                 HintReveal.scenario_version_id == interview.scenario_version_id)
        .order_by(HintReveal.revealed_at, HintReveal.id)).all()
    titles = {b.id: b.title for b in package.bugs}
    share = 100.0 / len(package.bugs) if package.bugs else 0.0
    return [HintTaken(bug_id=r.bug_id, bug_title=titles.get(r.bug_id, r.bug_id), level=r.level,
                      revealed_at=r.revealed_at, offset=offset_from(interview.started_at, r.revealed_at),
                      cost_points=round(share * HINT_PENALTY, 2)) for r in rows]


def build_record(*, session: Session, interview: Interview, with_details: bool = True) -> InterviewRecord:
    """The review of one interview; with_details=False skips diffs and tips (lists and exports)."""
    version = session.get(ScenarioVersion, interview.scenario_version_id)
    assert version is not None  # a foreign key without ON DELETE: the version outlives its interviews
    package = ScenarioPackage.from_dict(version.content)
    record = InterviewRecord(
        interview=interview, version=version, slug=scenarios_service.slug_of(session=session, version=version),
        package=package, state=state_module.interview_state(interview), time_used=state_module.time_used(interview),
    )
    previous: Attempt | None = None
    for number, attempt in enumerate(interview_attempts(session=session, interview_id=interview.id), start=1):
        files = {k: str(v) for k, v in attempt.files.items()}
        before = {k: str(v) for k, v in previous.files.items()} if previous else dict(package.starter_files)
        names = tuple(sorted(set(files) | set(before)))
        result = GradeResult.from_stored(attempt.result)
        record.attempts.append(AttemptEntry(
            attempt=attempt, number=number, offset=offset_from(interview.started_at, attempt.created_at),
            result=result, verdict=staff_verdict(attempt, result),
            tips=coaching_service.tips_of(session=session, attempt_id=attempt.id) if with_details else [],
            diff_previous=diff_files(before, files, names) if with_details else [],
            previous_number=number - 1 if previous else None,
            previous_name=numbers.attempt_name(previous.kind, number - 1) if previous else None,
            diff_starter=diff_files(dict(package.starter_files), files, names) if with_details else [],
        ))
        previous = attempt
    record.hints = hints_taken(session=session, interview=interview, package=package)
    return record
