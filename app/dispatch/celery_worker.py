"""`dojo worker`: a Celery worker that grades attempts from the broker queue.

The worker's own entry point: it imports the settings, database, models and grader, never the web
app. Each worker's main process also sweeps for attempts whose worker died (machine lost, SIGKILL)
and sends them back to the queue, so recovery does not wait for the broker's visibility timeout.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_process_init, worker_process_shutdown, worker_ready, worker_shutdown

from app.core.settings import get_settings
from app.dispatch import job_tasks, warm_sandboxes
from app.dispatch.celery_app import JOB_TASK_NAME, TASK_NAME, background_queue_name, get_celery, queue_name
from app.dispatch.grading import GradeOutcome, grade
from app.dispatch.jobs import grade_attempt

log = logging.getLogger(__name__)
celery = get_celery()
_sweeper_stop = threading.Event()


TIMEOUT_ERROR = {"kind": "timeout", "message": "Grading took longer than the worker's time limit."}


def grade_within_time_limit(**kwargs: Any) -> GradeOutcome:
    """The real grader; hitting the task's soft time limit ends the attempt as a timeout."""
    try:
        return grade(**kwargs)
    except SoftTimeLimitExceeded:
        return GradeOutcome(status="error", result=None, error=dict(TIMEOUT_ERROR), score=None)


@celery.task(name=TASK_NAME)
def grade_attempt_task(attempt_id: int) -> str:
    """Grade one attempt; redelivered or duplicate messages are skipped by the row's claim."""
    return grade_attempt(attempt_id, worker_prefix="celery", grader=grade_within_time_limit)


@celery.task(name=JOB_TASK_NAME)
def run_job_task(task_id: int) -> str:
    """Run one validation or rejudge task; duplicates are skipped by the task row's claim."""
    return job_tasks.run_job_task(task_id, worker_prefix="celery")


@worker_process_init.connect
def _fresh_connections_in_child(**_kwargs: object) -> None:
    # A forked pool process must not reuse the parent's database connections.
    from app.core.db import get_engine

    get_engine().dispose(close=False)


@worker_process_init.connect
def _keep_a_warm_sandbox(**_kwargs: object) -> None:
    # Each pool process grades one attempt at a time, so it keeps one standby sandbox. Fast here:
    # the bubblewrap probe already ran in the parent (worker_command) and its answer is inherited.
    if get_settings().warm_sandboxes:
        warm_sandboxes.start_keeping_warm()


@worker_process_shutdown.connect
def _stop_the_warm_sandbox(**_kwargs: object) -> None:
    warm_sandboxes.stop_keeping_warm()


@worker_ready.connect
def _start_sweeper(**_kwargs: object) -> None:
    from app.dispatch import recovery, task_recovery
    from app.dispatch.celery_app import queue_backlog, send_grade, send_job_task
    from app.dispatch.dispatcher import sweep_interval
    from app.dispatch.sweeper import redispatch_queued

    every = sweep_interval()

    def loop() -> None:
        while not _sweeper_stop.wait(every):
            try:
                recovery.sweep_stale(enqueue=send_grade)
                task_recovery.sweep_stale(enqueue=send_job_task)
                # Messages lost with a restarted broker, or never sent while it was down.
                redispatch_queued(send=send_grade, backlog=queue_backlog)
            except Exception:
                log.exception("stale-attempt sweep failed")

    threading.Thread(target=loop, name="dojo-sweeper", daemon=True).start()


@worker_ready.connect
def _start_metrics(**_kwargs: object) -> None:
    port = get_settings().metrics_port
    if port:
        from app.ops import metrics

        # The pool processes write their figures to PROMETHEUS_MULTIPROC_DIR (set before they fork).
        metrics.start_metrics_server(port, metrics.multiprocess_registry())


@worker_shutdown.connect
def _stop_sweeper(**_kwargs: object) -> None:
    _sweeper_stop.set()


def worker_command(*, concurrency: int = 0, loglevel: str = "info") -> int:
    """Run a Celery grading worker in the foreground until it is stopped."""
    settings = get_settings()
    if not settings.broker_url:
        log.error("dojo worker needs BROKER_URL (e.g. redis://localhost:6379/0)")
        return 2
    if settings.warm_sandboxes:
        from app.sandbox.bwrap_probe import bwrap_problem

        bwrap_problem()  # once, before the pool processes fork: they inherit the cached answer
    # The schema belongs to `dojo serve` / `dojo migrate`; workers only read and update rows.
    workers = concurrency if concurrency > 0 else (settings.worker_concurrency or os.cpu_count() or 1)
    argv = [
        "worker",
        f"--concurrency={workers}",
        f"--loglevel={loglevel}",
        f"--queues={queue_name()},{background_queue_name()}",  # in this order: see queue_order_strategy
        "--pool=prefork",
        "--without-gossip",
        "--without-mingle",
        f"--hostname=dojo-{os.getpid()}@%h",
    ]
    celery.worker_main(argv)
    return 0
