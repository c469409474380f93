"""Atomic state changes on the Attempt row, the single source of truth for every grading job.

Every change is one conditional UPDATE (app.dispatch.claiming), so two workers racing for the same
attempt can never both win: the database decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, exists, or_, select, update
from sqlalchemy.orm import Session, aliased

from app.attempts.models import Attempt, AttemptStatus
from app.core.db import utcnow
from app.dispatch.claiming import changed_rows as _changed
from app.grading.result import GradeError, GradeResult
from app.users.models import User

QUEUED = AttemptStatus.queued.value
RUNNING = AttemptStatus.running.value
ERROR = AttemptStatus.error.value
CRASH_MESSAGE = "The grading worker stopped unexpectedly {tries} times while grading this attempt; it was not retried."


@dataclass(frozen=True)
class Claim:
    """A successful claim: the attempt is ours while our token is in worker_id."""

    attempt_id: int
    token: str
    tries: int


def _stale_cutoff(stale_after_seconds: float) -> Any:
    return utcnow() - timedelta(seconds=stale_after_seconds)


def _claimable(stale_after_seconds: float) -> Any:
    """Queued, or running under a worker whose heartbeat stopped."""
    return or_(
        Attempt.status == QUEUED,
        and_(Attempt.status == RUNNING, Attempt.heartbeat_at < _stale_cutoff(stale_after_seconds)),
    )


def _own_grading_runs(stale_after_seconds: float) -> Any:
    """Another attempt of the same user is being graded under a live heartbeat (correlated to Attempt)."""
    other = aliased(Attempt)
    return exists().where(other.user_id == Attempt.user_id, other.id != Attempt.id, other.status == RUNNING,
                          other.heartbeat_at >= _stale_cutoff(stale_after_seconds))


def claim(*, session: Session, attempt_id: int, token: str, stale_after_seconds: float, max_tries: int) -> Claim | None:
    """Take the attempt for grading, or None when it is finished, held by a live worker, or its user
    has another attempt being graded (one grading slot per user: app/attempts/slots.py).

    An attempt that already used up max_tries (each try ended with its worker dying) is closed
    as an error of kind "crash" here instead of being graded again.
    """
    # The user's row lock first (PostgreSQL; SQLite's write lock), so that two workers claiming two
    # attempts of one user at once cannot both see no other grading running: the second one waits,
    # then sees the first's claim. An UPDATE, not a SELECT ... FOR UPDATE: on SQLite a transaction
    # that began by reading cannot write once another connection has written.
    owner = select(Attempt.user_id).where(Attempt.id == attempt_id).scalar_subquery()
    _changed(session, update(User).where(User.id == owner).values(display_name=User.display_name))
    give_up = _changed(
        session,
        update(Attempt)
        .where(Attempt.id == attempt_id, _claimable(stale_after_seconds), Attempt.tries >= max_tries)
        .values(status=ERROR, error=_crash_error(max_tries), finished_at=utcnow(), worker_id=None)
    )
    if give_up:
        session.commit()
        return None
    now = utcnow()
    taken = _changed(
        session,
        update(Attempt)
        .where(Attempt.id == attempt_id, _claimable(stale_after_seconds), ~_own_grading_runs(stale_after_seconds))
        .values(
            status=RUNNING, worker_id=token, heartbeat_at=now, started_at=now, tries=Attempt.tries + 1
        )
    )
    session.commit()
    if not taken:
        return None
    tries = session.scalar(select(Attempt.tries).where(Attempt.id == attempt_id)) or 0
    return Claim(attempt_id=attempt_id, token=token, tries=tries)


def waits_for_own_grading(*, session: Session, attempt_id: int, stale_after_seconds: float) -> bool:
    """True when the attempt is queued while another of its user's attempts is being graded."""
    found = session.scalar(
        select(Attempt.id).where(Attempt.id == attempt_id, Attempt.status == QUEUED,
                                 _own_grading_runs(stale_after_seconds))
    )
    return found is not None


def next_queued_of_user(*, session: Session, user_id: int) -> int | None:
    """The user's oldest queued attempt (the one to grade when their grading slot frees up)."""
    return session.scalar(
        select(Attempt.id).where(Attempt.user_id == user_id, Attempt.status == QUEUED).order_by(Attempt.id).limit(1)
    )


def _crash_error(tries: int) -> dict[str, str]:
    return {"kind": "crash", "message": CRASH_MESSAGE.format(tries=tries)}


def lock_for_write(*, session: Session, attempt_id: int) -> None:
    """Start a write transaction on the attempt (before reading, for SQLite's sake; see requeue_stale)."""
    _changed(session, update(Attempt).where(Attempt.id == attempt_id).values(heartbeat_at=Attempt.heartbeat_at))


def beat(*, session: Session, claim: Claim) -> bool:
    """Refresh the heartbeat; False when the claim was lost (another worker took the attempt over)."""
    done = _changed(
        session,
        update(Attempt)
        .where(Attempt.id == claim.attempt_id, Attempt.worker_id == claim.token, Attempt.status == RUNNING)
        .values(heartbeat_at=utcnow())
    )
    session.commit()
    return bool(done)


def report_progress(*, session: Session, claim: Claim, progress: dict[str, str | int]) -> bool:
    """Store where the grading is (display only) and beat the heartbeat; False when the claim is lost."""
    done = _changed(
        session,
        update(Attempt)
        .where(Attempt.id == claim.attempt_id, Attempt.worker_id == claim.token, Attempt.status == RUNNING)
        .values(progress=progress, heartbeat_at=utcnow())
    )
    session.commit()
    return bool(done)


def cancel(*, session: Session, attempt_id: int) -> bool:
    """Withdraw a queued attempt; False when a worker already took it (or it finished)."""
    done = _changed(
        session,
        update(Attempt)
        .where(Attempt.id == attempt_id, Attempt.status == QUEUED)
        .values(status=AttemptStatus.cancelled.value, finished_at=utcnow(), progress=None)
    )
    return bool(done)


def finish(
    *,
    session: Session,
    claim: Claim,
    status: str,
    result: GradeResult | None,
    error: GradeError | None,
    score: float | None,
) -> bool:
    """Store the outcome (as the row's JSON) if we still hold the claim; False means another worker owns it now."""
    done = _changed(
        session,
        update(Attempt)
        .where(Attempt.id == claim.attempt_id, Attempt.worker_id == claim.token, Attempt.status == RUNNING)
        .values(status=status, result=None if result is None else result.to_dict(),
                error=None if error is None else error.model_dump(mode="json"), score=score, finished_at=utcnow(),
                heartbeat_at=utcnow(), progress=None)
    )
    session.commit()
    return bool(done)


def requeue_stale(*, session: Session, stale_after_seconds: float, max_tries: int,
                  closed: list[int] | None = None) -> list[int]:
    """Running attempts whose worker stopped beating: back to queued, or closed as crash.

    Returns the ids put back in the queue (the caller enqueues them); those closed as crash are added
    to `closed`. The conditional UPDATE means only one sweeper (of many workers) re-queues each attempt.
    """
    stale = _stale_cutoff(stale_after_seconds)
    ids = session.scalars(
        select(Attempt.id).where(Attempt.status == RUNNING, Attempt.heartbeat_at < stale).order_by(Attempt.id)
    ).all()
    # One short write transaction per row, each starting with its UPDATE: on SQLite a transaction
    # that has read cannot write once another connection has written.
    session.commit()
    requeued = []
    for attempt_id in ids:
        condition = (Attempt.id == attempt_id, Attempt.status == RUNNING, Attempt.heartbeat_at < stale)
        crashed = _changed(
            session,
            update(Attempt)
            .where(*condition, Attempt.tries >= max_tries)
            .values(status=ERROR, error=_crash_error(max_tries), finished_at=utcnow(), worker_id=None),
        )
        back = 0 if crashed else _changed(
            session, update(Attempt).where(*condition).values(status=QUEUED, worker_id=None)
        )
        session.commit()
        if back:
            requeued.append(attempt_id)
        elif crashed and closed is not None:
            closed.append(attempt_id)
    return requeued


def queued_ids(*, session: Session, older_than_seconds: float = 0.0) -> list[int]:
    """Queued attempts, oldest first (optionally only those waiting longer than a while)."""
    query = select(Attempt.id).where(Attempt.status == QUEUED).order_by(Attempt.id)
    if older_than_seconds > 0:
        query = query.where(Attempt.created_at < _stale_cutoff(older_than_seconds))
    return list(session.scalars(query).all())
