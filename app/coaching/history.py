"""A candidate's attempts on one challenge, and what they show about progress and habits.

One challenge is one scenario version in one scope (practice, or one interview), like drafts. Only
the last few submits' results are loaded, so coaching stays fast however long the history is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.grading.result import COMPONENTS, GradeResult

HISTORY_LIMIT = 40  # attempts looked at before the current one
RESULTS_LOADED = 3  # earlier submits whose results are read
RAPID_SECONDS = 90  # a submit this soon after the previous one had little time for a check
RAPID_WINDOW_SECONDS = 300
RAPID_COUNT = 3  # ... or this many submits inside the window
REPEAT_COUNT = 3  # the same failure this many submits in a row


@dataclass(frozen=True)
class PastAttempt:
    id: int
    kind: str
    status: str
    created_at: datetime
    fixed: tuple[int, int] | None = None  # (fixed, planted) for graded submits
    failing_components: tuple[str, ...] = ()


@dataclass(frozen=True)
class History:
    """Earlier attempts (oldest first) and the current one."""

    previous: tuple[PastAttempt, ...]
    current: PastAttempt

    @property
    def submits(self) -> tuple[PastAttempt, ...]:
        """Graded submits, the current one last when it is a submit."""
        done = tuple(a for a in self.previous if a.kind == "submit" and a.status in ("passed", "failed"))
        return done + ((self.current,) if self.current.kind == "submit" else ())

    def previous_submit(self) -> PastAttempt | None:
        earlier = [a for a in self.previous if a.kind == "submit" and a.status in ("passed", "failed")]
        return earlier[-1] if earlier else None

    def ran_before_submitting(self) -> bool:
        """A run (or scratch) after the previous submit and before this one."""
        since = self.previous_submit()
        after = [a for a in self.previous if since is None or a.id > since.id]
        return any(a.kind in ("run", "scratch") for a in after)

    def used_scratch(self) -> bool:
        return self.current.kind == "scratch" or any(a.kind == "scratch" for a in self.previous)

    def rapid_fire(self) -> bool:
        submits = [a for a in self.previous if a.kind == "submit"] + [self.current]
        if len(submits) < 2:
            return False
        if (self.current.created_at - submits[-2].created_at).total_seconds() < RAPID_SECONDS:
            return True
        window_start = self.current.created_at.timestamp() - RAPID_WINDOW_SECONDS
        recent = [a for a in submits if a.created_at.timestamp() >= window_start]
        return len(recent) >= RAPID_COUNT

    def repeated_failure(self) -> tuple[str, ...]:
        """The failing components shared by the last REPEAT_COUNT graded submits, when they are the same."""
        last = self.submits[-REPEAT_COUNT:]
        if len(last) < REPEAT_COUNT or any(a.fixed is None for a in last):
            return ()
        first = last[0].failing_components
        if first and all(a.failing_components == first for a in last) and len({a.fixed for a in last}) == 1:
            return first
        return ()


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def summarise(attempt_id: int, kind: str, status: str, created_at: datetime, result: GradeResult | None) -> PastAttempt:
    """An attempt's place in the history, with fixed counts and failing components of a graded submit."""
    if result is None or kind != "submit" or status not in ("passed", "failed"):
        return PastAttempt(attempt_id, kind, status, _aware(created_at))
    failing = {t.component for t in result.failing()}
    return PastAttempt(attempt_id, kind, status, _aware(created_at),
                       fixed=(sum(b.fixed for b in result.bugs), len(result.bugs)),
                       failing_components=tuple(c for c in COMPONENTS if c in failing))


def history_of(*, session: Session, attempt: Attempt, result: GradeResult | None) -> History:
    """The history of the attempt's challenge up to and including it."""
    scope = (Attempt.interview_id.is_(None) if attempt.interview_id is None
             else Attempt.interview_id == attempt.interview_id)
    rows = list(session.execute(
        select(Attempt.id, Attempt.kind, Attempt.status, Attempt.created_at)
        .where(Attempt.user_id == attempt.user_id, Attempt.scenario_version_id == attempt.scenario_version_id,
               scope, Attempt.id < attempt.id)
        .order_by(Attempt.id.desc()).limit(HISTORY_LIMIT)
    ).all())
    rows.reverse()
    graded = [r.id for r in rows if r.kind == "submit" and r.status in ("passed", "failed")][-RESULTS_LOADED:]
    results: dict[int, GradeResult | None] = {}
    if graded:
        results = {attempt_id: GradeResult.from_stored(stored) for attempt_id, stored in
                   session.execute(select(Attempt.id, Attempt.result).where(Attempt.id.in_(graded)))}
    previous = tuple(summarise(r.id, r.kind, r.status, r.created_at, results.get(r.id)) for r in rows)
    current = summarise(attempt.id, attempt.kind, attempt.status, attempt.created_at, result)
    return History(previous=previous, current=current)
