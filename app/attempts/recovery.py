"""Finding work that was lost: queued attempts nobody is grading and running ones whose worker died."""

from __future__ import annotations

import logging

from sqlalchemy import select

from app.attempts import claims, slots
from app.attempts.job_kinds import grade_job
from app.attempts.models import Attempt
from app.core.db import new_session
from app.core.settings import get_settings
from app.dispatch.registry import Enqueue

log = logging.getLogger(__name__)


def sweep_stale(*, enqueue: Enqueue) -> list[int]:
    """Put attempts whose worker stopped beating back in the queue (or close them as crash)."""
    settings = get_settings()
    crashed: list[int] = []
    with new_session() as session:
        ids = claims.requeue_stale(
            session=session, stale_after_seconds=settings.stale_after_seconds, max_tries=settings.max_tries,
            closed=crashed,
        )
        # A grading closed here ends no worker's job, so nobody released its user's next attempt.
        owners = sorted(set(session.scalars(select(Attempt.user_id).where(Attempt.id.in_(crashed))))) if crashed else []
        session.rollback()
    for attempt_id in ids:
        log.warning("attempt %s: worker stopped beating; dispatched again", attempt_id)
        enqueue(grade_job(attempt_id))
    for user_id in owners:
        slots.release_next(user_id)
    return ids


def recover_on_start(*, enqueue: Enqueue) -> list[int]:
    """Dispatch every queued attempt and every running one whose heartbeat went stale."""
    sweep_stale(enqueue=lambda _id: None)  # they become queued and are enqueued just below
    with new_session() as session:
        ids = claims.queued_ids(session=session)
    for attempt_id in ids:
        enqueue(grade_job(attempt_id))
    if ids:
        log.info("recovery: %d queued attempt(s) dispatched", len(ids))
    return ids
