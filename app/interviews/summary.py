"""One interview in a line: the figures the CSV export, the comparison table and the API share."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from app.attempts.points import points
from app.interviews.models import Interview
from app.interviews.record import InterviewRecord, build_record
from app.interviews.reviews import ReviewView, reviews_of
from app.interviews.signals.detect import signals_for
from app.interviews.signals.model import Signal
from app.interviews.state import State
from app.users.models import User


@dataclass
class InterviewSummary:
    record: InterviewRecord
    reviews: list[ReviewView]
    signals: list[Signal]

    @property
    def id(self) -> int:
        return self.record.interview.id

    @property
    def state(self) -> State:
        return self.record.state

    @property
    def score(self) -> float | None:
        """The latest graded submission's score (0..1), or None before one."""
        latest = self.record.latest_submit
        return latest.attempt.score if latest else None

    @property
    def points(self) -> float | None:
        """The same score in points out of 100, as every page, the CSV and the JSON show it."""
        return points(self.score)

    @property
    def bugs_fixed(self) -> int | None:
        latest = self.record.latest_submit
        return self.record.fixed_count(latest) if latest else None

    @property
    def bug_total(self) -> int:
        return len(self.record.package.bugs)

    @property
    def minutes_used(self) -> float | None:
        used = self.record.time_used
        return round(used / timedelta(minutes=1), 1) if used is not None else None

    @property
    def attempt_count(self) -> int:
        return len(self.record.columns)

    @property
    def hints(self) -> int:
        return len(self.record.hints)

    @property
    def decisions(self) -> list[str]:
        return [r.decision for r in self.reviews if r.decision != "undecided"]

    @property
    def raised_signals(self) -> list[Signal]:
        return [s for s in self.signals if s.raised]

    @property
    def created_at(self) -> datetime:
        return self.record.interview.created_at


def summarise(*, session: Session, interviews: list[Interview], viewer: User | None = None) -> list[InterviewSummary]:
    """Summaries in the order given (records without diffs or tips: lists need figures, not details), with
    the signals as `viewer` may read them."""
    reviews = reviews_of(session=session, interview_ids=[i.id for i in interviews])
    out = []
    for interview in interviews:
        record = build_record(session=session, interview=interview, with_details=False)
        out.append(InterviewSummary(record=record, reviews=reviews[interview.id],
                                    signals=signals_for(session=session, record=record, viewer=viewer)))
    return out
