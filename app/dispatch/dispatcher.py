"""Choosing and holding the process's dispatcher, and enqueueing only after the commit.

With BROKER_URL empty the local pool grades inside this process; with a broker URL jobs go to Celery.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from sqlalchemy import event
from sqlalchemy.orm import Session

from app.core.settings import get_settings

log = logging.getLogger(__name__)

_PENDING_KEY = "dojo_pending_enqueues"


class Dispatcher(Protocol):
    def enqueue(self, attempt_id: int) -> None: ...

    def enqueue_task(self, task_id: int) -> None: ...

    def stop(self, timeout: float = 10.0) -> None: ...


class CeleryDispatcher:
    """Sends jobs to the broker; the workers do the grading and the sweeping."""

    def enqueue(self, attempt_id: int) -> None:
        from app.dispatch.celery_app import send_grade

        send_grade(attempt_id)

    def enqueue_task(self, task_id: int) -> None:
        from app.dispatch.celery_app import send_job_task

        send_job_task(task_id)

    def stop(self, timeout: float = 10.0) -> None:
        return None


_active: Dispatcher | None = None


def start() -> Dispatcher:
    """Start this process's dispatcher (local pool or Celery sender) and recover lost work."""
    global _active
    if _active is not None:
        return _active
    if get_settings().broker_url:
        from app.dispatch import recovery, task_recovery

        dispatcher: Dispatcher = CeleryDispatcher()
        try:
            recovery.recover_on_start(enqueue=dispatcher.enqueue)
            task_recovery.recover_on_start(enqueue=dispatcher.enqueue_task)
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


def enqueue_task(task_id: int) -> None:
    """Hand a committed scenario-job task to the dispatcher (see enqueue).

    A Celery worker runs no dispatcher but closes job phases that add tasks; with a broker
    configured it sends them straight to the queue.
    """
    target = _active if _active is not None else (CeleryDispatcher() if get_settings().broker_url else None)
    if target is None:
        log.warning("job task %s queued but no dispatcher is running; it runs on the next start", task_id)
        return
    try:
        target.enqueue_task(task_id)
    except Exception:  # broker down: the row stays queued and the start-up recovery finds it
        log.exception("job task %s: could not be dispatched now; left queued", task_id)


def enqueue_after_commit(session: Session, attempt_id: int) -> None:
    """Dispatch the attempt once the session's transaction commits; a rollback drops it."""
    _after_commit(session, (enqueue, attempt_id))


def enqueue_task_after_commit(session: Session, task_id: int) -> None:
    """Dispatch the scenario-job task once the session's transaction commits; a rollback drops it."""
    _after_commit(session, (enqueue_task, task_id))


def _after_commit(session: Session, item: tuple[Callable[[int], None], int]) -> None:
    pending: list[tuple[Callable[[int], None], int]] = session.info.setdefault(_PENDING_KEY, [])
    pending.append(item)
    if not event.contains(session, "after_commit", _flush_pending):
        event.listen(session, "after_commit", _flush_pending)
        event.listen(session, "after_soft_rollback", _drop_pending)


def _flush_pending(session: Session) -> None:
    pending: list[tuple[Callable[[int], None], int]] = session.info.pop(_PENDING_KEY, [])
    for send, job_id in pending:
        send(job_id)


def _drop_pending(session: Session, _previous_transaction: object) -> None:
    session.info.pop(_PENDING_KEY, None)
