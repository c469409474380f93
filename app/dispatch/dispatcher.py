"""Choosing and holding the process's dispatcher, and enqueueing only after the commit.

With BROKER_URL empty the local pool grades inside this process; with a broker URL jobs go to Celery.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Protocol

from sqlalchemy import event
from sqlalchemy.orm import Session

from app.core.settings import get_settings

log = logging.getLogger(__name__)

_PENDING_KEY = "dojo_pending_enqueues"


class Dispatcher(Protocol):
    def enqueue(self, attempt_id: int) -> None: ...

    def enqueue_task(self, task_id: int, background: bool = True) -> None: ...

    def stop(self, timeout: float = 10.0) -> None: ...


class BrokerUnavailable(Exception):
    """A recent send failed; sends are skipped until the sweeper gets one through."""


class CeleryDispatcher:
    """Sends jobs to the broker; the workers grade. A sweeper thread re-sends what could not be sent.

    After a failed send, requests stop trying for `pause_seconds` (each try would wait for the
    broker's connection timeout); their attempts stay queued and the sweeper sends them once the
    broker answers again.
    """

    def __init__(self, *, pause_seconds: float = 5.0) -> None:
        self.pause_seconds = pause_seconds
        self._down_until = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def enqueue(self, attempt_id: int) -> None:
        from app.dispatch.celery_app import send_grade

        if time.monotonic() < self._down_until:
            raise BrokerUnavailable("the broker was unreachable moments ago")
        try:
            send_grade(attempt_id)
        except Exception:
            self._down_until = time.monotonic() + self.pause_seconds
            raise

    def start_sweeper(self, every_seconds: float) -> None:
        """Re-send queued attempts whose send failed or was lost, every few seconds, until stopped."""
        from app.dispatch.celery_app import queue_backlog, send_grade
        from app.dispatch.sweeper import redispatch_queued

        def loop() -> None:
            while not self._stop.wait(every_seconds):
                try:
                    if redispatch_queued(send=send_grade, backlog=queue_backlog):
                        self._down_until = 0.0
                except Exception:  # the database may be down too; the next round tries again
                    log.exception("queued-attempt sweep failed")

        self._thread = threading.Thread(target=loop, name="dojo-dispatch-sweeper", daemon=True)
        self._thread.start()

    def enqueue_task(self, task_id: int, background: bool = True) -> None:
        from app.dispatch.celery_app import send_job_task

        send_job_task(task_id, background=background)

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)


_active: Dispatcher | None = None


def start() -> Dispatcher:
    """Start this process's dispatcher (local pool or Celery sender) and recover lost work."""
    global _active
    if _active is not None:
        return _active
    if get_settings().broker_url:
        from app.dispatch import recovery, task_recovery

        celery_dispatcher = CeleryDispatcher()
        dispatcher: Dispatcher = celery_dispatcher
        try:
            recovery.recover_on_start(enqueue=dispatcher.enqueue)
            task_recovery.recover_on_start(enqueue=dispatcher.enqueue_task)
        except Exception:  # the broker is down: serve anyway; the sweeper sends them when it is back
            log.exception("could not re-dispatch queued attempts to the broker at start-up")
        celery_dispatcher.start_sweeper(sweep_interval())
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
    """Hand a committed attempt to the dispatcher; with none running it waits for the next start.

    A Celery worker runs no dispatcher but releases the attempts that waited for a reference run it
    finished; with a broker configured it sends them straight to the queue.
    """
    target = _active if _active is not None else (CeleryDispatcher() if get_settings().broker_url else None)
    if target is None:
        log.warning("attempt %s queued but no dispatcher is running; it runs on the next start", attempt_id)
        return
    try:
        target.enqueue(attempt_id)
    except Exception as exc:  # broker down: the row stays queued and the sweeper sends it later
        log.warning("attempt %s: could not be dispatched now (%s); left queued for the sweeper",
                    attempt_id, exc.__class__.__name__)
        try:
            from app.dispatch.sweeper import mark_unsent

            mark_unsent(attempt_id)
        except Exception:  # the database is down as well; the sweeper still finds it by its age
            log.exception("attempt %s: could not mark the failed dispatch", attempt_id)


def sweep_interval() -> float:
    """How often sweepers look for stale and unsent attempts."""
    settings = get_settings()
    return max(0.5, min(settings.heartbeat_seconds, settings.stale_after_seconds / 2))


def enqueue_task(task_id: int, background: bool = True) -> None:
    """Hand a committed scenario-job task to the dispatcher (see enqueue); background work (the
    mutation matrix, rejudges) goes behind gradings and reference runs.

    A Celery worker runs no dispatcher but closes job phases that add tasks; with a broker
    configured it sends them straight to the queue.
    """
    target = _active if _active is not None else (CeleryDispatcher() if get_settings().broker_url else None)
    if target is None:
        log.warning("job task %s queued but no dispatcher is running; it runs on the next start", task_id)
        return
    try:
        target.enqueue_task(task_id, background)
    except Exception:  # broker down: the row stays queued and the start-up recovery finds it
        log.exception("job task %s: could not be dispatched now; left queued", task_id)


def enqueue_after_commit(session: Session, attempt_id: int) -> None:
    """Dispatch the attempt once the session's transaction commits; a rollback drops it.

    The dispatch record is written in the same transaction, with the request id, so a send that
    fails later (or never happens, the process dying) is found and retried by the sweeper.
    """
    from app.core.db import utcnow
    from app.core.logs import current_request_id
    from app.dispatch.models import AttemptDispatch

    # Counted as sent now: a send that fails marks it unsent at once, one that never happens (the
    # process died) makes it due after REDISPATCH_AFTER_SECONDS.
    session.add(AttemptDispatch(attempt_id=attempt_id, sent_at=utcnow(), sends=1, request_id=current_request_id()))
    _after_commit(session, (enqueue, attempt_id))


def enqueue_task_after_commit(session: Session, task_id: int, *, background: bool = True) -> None:
    """Dispatch the scenario-job task once the session's transaction commits; a rollback drops it."""
    _after_commit(session, (partial(enqueue_task, background=background), task_id))


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
