"""`dojo worker`: a Celery worker that runs the registered jobs (gradings, scenario-job tasks) from the
broker's queues.

The worker's own entry point, like app/main.py for the web app: it imports the settings, database,
models, the domains' job kinds and the grader, never the web app. Each worker's main process also
sweeps for jobs whose worker died (machine lost, SIGKILL) and sends them back to the queue, so
recovery does not wait for the broker's visibility timeout.
"""

from __future__ import annotations

import argparse
import logging
import os
import threading

from celery import Task
from celery.signals import worker_process_init, worker_process_shutdown, worker_ready, worker_shutdown

import app.models  # noqa: F401  (every table, so foreign keys resolve in a worker process)
from app.attempts.job_registration import register_jobs as register_attempt_jobs
from app.core.settings import get_settings
from app.dispatch import registry, warm_sandboxes
from app.dispatch.celery_app import background_queue_name, get_celery, queue_name
from app.dispatch.registry import JobKind
from app.scenarios.job_registration import register_jobs as register_scenario_jobs

log = logging.getLogger(__name__)
celery = get_celery()
_sweeper_stop = threading.Event()


def register_jobs() -> None:
    """Every domain's job kinds (the same call as `dojo serve` makes in app/startup.py)."""
    register_attempt_jobs()
    register_scenario_jobs()


def _celery_task(kind: JobKind) -> Task:
    """The Celery task of one job kind: its message carries the row id; duplicate or redelivered
    messages are skipped by the row's claim, and a soft time limit is the job's own to report."""

    def run(job_id: int) -> object:
        return kind.run(job_id, "celery")

    run.__name__ = run.__qualname__ = f"run_{kind.name.replace('-', '_')}"
    task: Task = celery.task(name=kind.task_name)(run)
    return task


register_jobs()
tasks = {kind.task_name: _celery_task(kind) for kind in registry.kinds()}


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


@worker_process_init.connect
def _fork_judges_from_a_server(**_kwargs: object) -> None:
    warm_sandboxes.start_judge_forks()


@worker_process_shutdown.connect
def _stop_the_warm_sandbox(**_kwargs: object) -> None:
    warm_sandboxes.stop_keeping_warm()


@worker_ready.connect
def _start_sweeper(**_kwargs: object) -> None:
    from app.dispatch.celery_app import queue_backlog, send
    from app.dispatch.dispatcher import sweep_interval

    every = sweep_interval()

    def loop() -> None:
        while not _sweeper_stop.wait(every):
            try:
                registry.sweep_all(send)
                # Messages lost with a restarted broker, or never sent while it was down.
                registry.redispatch_all(send, queue_backlog)
            except Exception:
                log.exception("stale-job sweep failed")

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


def main(argv: list[str] | None = None) -> int:
    """`dojo worker` (app/cli.py calls this): log as configured, then run."""
    from app.core import logs

    parser = argparse.ArgumentParser(prog="dojo worker")
    parser.add_argument("--concurrency", type=int, default=0, help="0 = one per CPU core")
    parser.add_argument("--loglevel", default="info")
    args = parser.parse_args(argv)
    logs.configure(get_settings())
    return worker_command(concurrency=args.concurrency, loglevel=args.loglevel)


def worker_command(*, concurrency: int = 0, loglevel: str = "info") -> int:
    """Run a Celery worker in the foreground until it is stopped."""
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
