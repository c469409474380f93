"""Sending queued attempts again when their dispatch failed or was lost: no restart needed.

Runs in the web process (next to the Celery sender) and in every `dojo worker`. Each round takes
queued attempts whose send failed, and, when the broker's queue is empty, those last sent more than
REDISPATCH_AFTER_SECONDS ago (their message was lost, e.g. with a broker restarted without
persistence); it marks each with a conditional UPDATE (so of several sweepers only one re-sends it)
and sends it. A duplicate message is harmless: the attempt row's claim lets only one worker grade it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.attempts.dispatch_models import AttemptDispatch
from app.attempts.models import Attempt, AttemptStatus
from app.core.db import new_session, utcnow
from app.core.settings import get_settings

log = logging.getLogger(__name__)
BATCH = 200


def due_for_dispatch(*, session: Session, older_than_seconds: float, include_old: bool = True,
                     limit: int = BATCH) -> list[int]:
    """Queued attempts never sent or whose send failed, and (include_old) those last sent before the cut-off."""
    cutoff = utcnow() - timedelta(seconds=older_than_seconds)
    unsent = or_(AttemptDispatch.attempt_id.is_(None), AttemptDispatch.sent_at.is_(None))
    query = (
        select(Attempt.id)
        .outerjoin(AttemptDispatch, AttemptDispatch.attempt_id == Attempt.id)
        .where(Attempt.status == AttemptStatus.queued.value)
        .where(or_(unsent, AttemptDispatch.sent_at < cutoff) if include_old else unsent)
        .order_by(Attempt.id)
        .limit(limit)
    )
    return list(session.scalars(query).all())


def take_for_sending(*, session: Session, attempt_id: int, older_than_seconds: float) -> bool:
    """Mark the attempt as being sent now; False when another sweeper just did (or it is not due)."""
    cutoff = utcnow() - timedelta(seconds=older_than_seconds)
    changed = session.execute(
        update(AttemptDispatch)
        .where(AttemptDispatch.attempt_id == attempt_id)
        .where(or_(AttemptDispatch.sent_at.is_(None), AttemptDispatch.sent_at < cutoff))
        .values(sent_at=utcnow(), sends=AttemptDispatch.sends + 1)
        .execution_options(synchronize_session=False)
    )
    if cast(CursorResult[Any], changed).rowcount == 1:
        session.commit()
        return True
    session.rollback()
    exists = session.get(AttemptDispatch, attempt_id)
    if exists is not None:
        return False
    # Queued before dispatch rows existed (or by a path that bypassed them): create the row now.
    session.add(AttemptDispatch(attempt_id=attempt_id, sent_at=utcnow(), sends=1))
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        return False
    return True


def mark_unsent(attempt_id: int) -> None:
    """The send failed: make the attempt due again on the next round."""
    with new_session() as session:
        session.execute(
            update(AttemptDispatch).where(AttemptDispatch.attempt_id == attempt_id).values(sent_at=None)
            .execution_options(synchronize_session=False)
        )
        session.commit()


def redispatch_queued(*, send: Callable[[int], None], older_than_seconds: float | None = None,
                      backlog: Callable[[], int] | None = None) -> list[int]:
    """One round: send every due queued attempt; stop at the first failed send (the broker is down).

    `backlog` counts the messages waiting on the broker. Attempts sent long ago are sent again only
    when it is empty: while messages wait, an old send is a long queue, not a lost message.
    """
    wait = get_settings().redispatch_after_seconds if older_than_seconds is None else older_than_seconds
    sent: list[int] = []
    include_old = True
    if backlog is not None:
        try:
            include_old = backlog() == 0
        except Exception:  # the broker does not answer: only failed sends are due (they will fail again)
            include_old = False
    with new_session() as session:
        due = due_for_dispatch(session=session, older_than_seconds=wait, include_old=include_old)
        session.rollback()
        for attempt_id in due:
            if not take_for_sending(session=session, attempt_id=attempt_id, older_than_seconds=wait):
                continue
            try:
                send(attempt_id)
            except Exception as exc:
                mark_unsent(attempt_id)
                log.warning("broker still unavailable (%s); %d queued attempt(s) wait for the next round",
                            exc.__class__.__name__, len(due) - len(sent))
                break
            sent.append(attempt_id)
    if sent:
        log.info("sweeper: %d queued attempt(s) sent to the broker", len(sent))
    return sent
