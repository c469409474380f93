"""Choosing and holding the process's dispatcher, and enqueueing only after the commit.

With BROKER_URL empty the local pool runs jobs inside this process; with a broker URL they go to Celery.
Which kinds of job exist, and how lost ones are found, is the registry's (app/dispatch/registry.py).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol

from sqlalchemy import event
from sqlalchemy.orm import Session

from app.core.settings import get_settings
from app.dispatch import registry
from app.dispatch.registry import Job

log = logging.getLogger(__name__)

_PENDING_KEY = "dojo_pending_enqueues"


class Dispatcher(Protocol):
    def enqueue(self, job: Job) -> None: ...

    def stop(self, timeout: float = 10.0) -> None: ...


class BrokerUnavailable(Exception):
    """A recent send failed; sends are skipped until the sweeper gets one through."""


class CeleryDispatcher:
    """Sends jobs to the broker; the workers run them. A sweeper thread re-sends what could not be sent.

    After a failed send, requests stop trying for `pause_seconds` (each try would wait for the
    broker's connection timeout); their jobs stay queued and the sweeper sends them once the
    broker answers again.
    """

    def __init__(self, *, pause_seconds: float = 5.0) -> None:
        self.pause_seconds = pause_seconds
        self._down_until = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def enqueue(self, job: Job) -> None:
        from app.dispatch.celery_app import send

        if time.monotonic() < self._down_until:
            raise BrokerUnavailable("the broker was unreachable moments ago")
        try:
            send(job)
        except Exception:
            self._down_until = time.monotonic() + self.pause_seconds
            raise

    def start_sweeper(self, every_seconds: float) -> None:
        """Re-send queued jobs whose send failed or was lost, every few seconds, until stopped."""
        from app.dispatch.celery_app import queue_backlog, send

        def loop() -> None:
            while not self._stop.wait(every_seconds):
                try:
                    if registry.redispatch_all(send, queue_backlog):
                        self._down_until = 0.0
                except Exception:  # the database may be down too; the next round tries again
                    log.exception("queued-job sweep failed")

        self._thread = threading.Thread(target=loop, name="dojo-dispatch-sweeper", daemon=True)
        self._thread.start()

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
        celery_dispatcher = CeleryDispatcher()
        dispatcher: Dispatcher = celery_dispatcher
        try:
            registry.recover_all(dispatcher.enqueue)
        except Exception:  # the broker is down: serve anyway; the sweeper sends them when it is back
            log.exception("could not re-dispatch queued jobs to the broker at start-up")
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


def enqueue(job: Job) -> None:
    """Hand a committed job to the dispatcher; with none running it waits for the next start.

    A Celery worker runs no dispatcher but releases the attempts that waited for a reference run it
    finished, and closes job phases that add tasks; with a broker configured it sends them straight
    to the queue.
    """
    target = _active if _active is not None else (CeleryDispatcher() if get_settings().broker_url else None)
    if target is None:
        log.warning("%s queued but no dispatcher is running; it runs on the next start", job.key)
        return
    try:
        target.enqueue(job)
    except Exception as exc:  # broker down: the row stays queued and the sweeper or recovery sends it later
        log.warning("%s: could not be dispatched now (%s); left queued", job.key, exc.__class__.__name__)
        kind = registry.find(job.kind)
        mark_unsent = kind.on_send_failed if kind is not None else None
        if mark_unsent is None:
            return
        try:
            mark_unsent(job.id)
        except Exception:  # the database is down as well; the sweeper still finds it by its age
            log.exception("%s: could not mark the failed dispatch", job.key)


def sweep_interval() -> float:
    """How often sweepers look for stale and unsent jobs."""
    settings = get_settings()
    return max(0.5, min(settings.heartbeat_seconds, settings.stale_after_seconds / 2))


def enqueue_after_commit(session: Session, job: Job) -> None:
    """Dispatch the job once the session's transaction commits; a rollback drops it."""
    pending: list[Job] = session.info.setdefault(_PENDING_KEY, [])
    pending.append(job)
    if not event.contains(session, "after_commit", _flush_pending):
        event.listen(session, "after_commit", _flush_pending)
        event.listen(session, "after_soft_rollback", _drop_pending)


def _flush_pending(session: Session) -> None:
    pending: list[Job] = session.info.pop(_PENDING_KEY, [])
    for job in pending:
        enqueue(job)


def _drop_pending(session: Session, _previous_transaction: object) -> None:
    session.info.pop(_PENDING_KEY, None)
