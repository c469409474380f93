"""Choosing and holding the process's dispatcher, and enqueueing only after the commit.

With BROKER_URL empty the local pool grades inside this process; with a broker URL jobs go to Celery.
"""

from __future__ import annotations

import logging
from typing import Protocol

from sqlalchemy import event
from sqlalchemy.orm import Session

from app.core.settings import get_settings

log = logging.getLogger(__name__)

_PENDING_KEY = "dojo_pending_enqueues"


class Dispatcher(Protocol):
    def enqueue(self, attempt_id: int) -> None: ...

    def stop(self, timeout: float = 10.0) -> None: ...


class CeleryDispatcher:
    """Sends jobs to the broker; the workers do the grading and the sweeping."""

    def enqueue(self, attempt_id: int) -> None:
        from app.dispatch.celery_app import send_grade

        send_grade(attempt_id)

    def stop(self, timeout: float = 10.0) -> None:
        return None


_active: Dispatcher | None = None


def start() -> Dispatcher:
    """Start this process's dispatcher (local pool or Celery sender) and recover lost work."""
    global _active
    if _active is not None:
        return _active
    if get_settings().broker_url:
        from app.dispatch import recovery

        dispatcher: Dispatcher = CeleryDispatcher()
        try:
            recovery.recover_on_start(enqueue=dispatcher.enqueue)
        except Exception:  # the broker is down: serve anyway; the rows stay queued for the next start
            log.exception("could not re-dispatch queued attempts to the broker at start-up")
    else:
        from app.dispatch.local_pool import LocalPool

        pool = LocalPool()
        pool.start()
        dispatcher = pool
    _active = dispatcher
    return dispatcher


def stop(timeout: float = 10.0) -> None:
    """Stop the dispatcher started by start()."""
    global _active
    if _active is not None:
        _active.stop(timeout)
    _active = None


def active() -> Dispatcher | None:
    return _active


def enqueue(attempt_id: int) -> None:
    """Hand a committed attempt to the dispatcher; with none running it waits for the next start."""
    if _active is None:
        log.warning("attempt %s queued but no dispatcher is running; it runs on the next start", attempt_id)
        return
    try:
        _active.enqueue(attempt_id)
    except Exception:  # broker down: the row stays queued and the start-up recovery finds it
        log.exception("attempt %s: could not be dispatched now; left queued", attempt_id)


def enqueue_after_commit(session: Session, attempt_id: int) -> None:
    """Dispatch the attempt once the session's transaction commits; a rollback drops it."""
    pending: list[int] = session.info.setdefault(_PENDING_KEY, [])
    pending.append(attempt_id)
    if not event.contains(session, "after_commit", _flush_pending):
        event.listen(session, "after_commit", _flush_pending)
        event.listen(session, "after_soft_rollback", _drop_pending)


def _flush_pending(session: Session) -> None:
    pending: list[int] = session.info.pop(_PENDING_KEY, [])
    for attempt_id in pending:
        enqueue(attempt_id)


def _drop_pending(session: Session, _previous_transaction: object) -> None:
    session.info.pop(_PENDING_KEY, None)
