"""The live event log of an interview: rows whose ids are the stream's event ids.

`append` writes an event in the caller's transaction and wakes the interview's streams once it commits
(hub.notify, after_commit). Writers first lock the interview's row, so within one interview ids are
committed in increasing order (SQLite has one writer anyway): a stream that has seen id n has seen
every earlier event of that interview, which is what makes Last-Event-ID exact.

Bounded: an interview keeps its DRAFT_EVENTS_KEPT newest draft events (each holds a file's whole text;
a newer one supersedes it for a follower) and its EVENTS_KEPT newest events of other kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, event, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.core.db import as_utc, utcnow
from app.interviews.live.hub import get_hub
from app.interviews.live.models import LiveEvent
from app.interviews.models import Interview

DRAFT_EVENTS_KEPT = 20
EVENTS_KEPT = 500
PRUNE_EVERY = 50  # other kinds are pruned when an event id is a multiple of this
READ_LIMIT = 200
KINDS = ("draft", "presence", "attempt", "message", "ended")
_PENDING = "live_pending_notify"


@dataclass(frozen=True)
class StreamEvent:
    """One event as the stream sends it."""

    id: int
    kind: str
    data: dict[str, object]


def clock_seconds(interview: Interview, moment: datetime | None = None) -> int:
    """Seconds on the interview clock at `moment` (now): 0 before the candidate started."""
    if interview.started_at is None:
        return 0
    at = as_utc(moment) if moment is not None else utcnow()
    return max(0, int((at - as_utc(interview.started_at)).total_seconds()))


def lock_interview(session: Session, interview_id: int) -> None:
    """Hold the interview's row until commit (PostgreSQL; SQLite serialises writers itself)."""
    session.execute(select(Interview.id).where(Interview.id == interview_id).with_for_update())


def append(session: Session, interview_id: int, kind: str, data: dict[str, object], *, key: str | None = None,
           locked: bool = False) -> LiveEvent:
    """Add an event (flushed); the interview's streams are woken when the transaction commits."""
    if kind not in KINDS:
        raise ValueError(f"unknown live event kind {kind!r}")
    if not locked:
        lock_interview(session, interview_id)
    row = LiveEvent(interview_id=interview_id, kind=kind, key=key, data=data)
    session.add(row)
    session.flush()
    _prune(session, interview_id, row)
    session.info.setdefault(_PENDING, set()).add(interview_id)
    return row


def append_once(session: Session, interview_id: int, kind: str, data: dict[str, object], *, key: str) -> bool:
    """Write an event that several streams may write at once (an attempt's new status) and commit.

    Exactly one row per (interview, key) exists afterwards; False when another writer was first.
    Commits or rolls back the session: call it on a session of its own.
    """
    lock_interview(session, interview_id)
    if session.scalar(select(LiveEvent.id).where(LiveEvent.interview_id == interview_id, LiveEvent.key == key)):
        session.rollback()
        return False
    try:
        append(session, interview_id, kind, data, key=key, locked=True)
        session.commit()
    except IntegrityError:
        session.rollback()
        return False
    return True


def _prune(session: Session, interview_id: int, row: LiveEvent) -> None:
    if row.kind == "draft":
        same_kind, kept = LiveEvent.kind == "draft", DRAFT_EVENTS_KEPT
    elif row.id % PRUNE_EVERY == 0:
        same_kind, kept = LiveEvent.kind != "draft", EVENTS_KEPT
    else:
        return
    mine = (LiveEvent.interview_id == interview_id, same_kind)
    cutoff = session.scalar(select(LiveEvent.id).where(*mine).order_by(LiveEvent.id.desc()).offset(kept).limit(1))
    if cutoff is not None:
        session.execute(delete(LiveEvent).where(*mine, LiveEvent.id <= cutoff)
                        .execution_options(synchronize_session=False))


def events_after(session: Session, interview_id: int, after: int, *, kinds: Sequence[str] | None = None,
                 limit: int = READ_LIMIT) -> list[StreamEvent]:
    """The interview's events with an id above `after`, oldest first."""
    query = select(LiveEvent.id, LiveEvent.kind, LiveEvent.data).where(
        LiveEvent.interview_id == interview_id, LiveEvent.id > after)
    if kinds is not None:
        query = query.where(LiveEvent.kind.in_(kinds))
    rows = session.execute(query.order_by(LiveEvent.id).limit(limit)).all()
    return [StreamEvent(id=r.id, kind=r.kind, data=dict(r.data)) for r in rows]


def newest_id(session: Session, interview_id: int, *, kinds: Sequence[str] | None = None) -> int:
    query = select(LiveEvent.id).where(LiveEvent.interview_id == interview_id)
    if kinds is not None:
        query = query.where(LiveEvent.kind.in_(kinds))
    return session.scalar(query.order_by(LiveEvent.id.desc()).limit(1)) or 0


@event.listens_for(Session, "after_commit")
def _notify_after_commit(session: Session) -> None:
    pending = session.info.pop(_PENDING, None)
    if pending:
        hub = get_hub()
        for interview_id in pending:
            hub.notify(interview_id)


@event.listens_for(Session, "after_rollback")
def _forget_after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)
