"""How the plumbing runs and recovers scenario-job tasks: the scenario domain's JobKind, registered by
register_jobs() from `dojo serve` (app/startup.py) and from the `dojo worker` entry (app/worker.py).

The handlers look their functions up when called, so tests may replace them.
"""

from __future__ import annotations

from app.dispatch import registry
from app.dispatch.registry import Enqueue, JobKind, Priority
from app.scenarios import task_recovery, task_runner
from app.scenarios.job_kinds import JOB_TASK, JOB_TASK_NAME


def _run(task_id: int, worker_prefix: str) -> object:
    return task_runner.run_job_task(task_id, worker_prefix=worker_prefix)


def _recover_on_start(enqueue: Enqueue) -> object:
    return task_recovery.recover_on_start(enqueue=enqueue)


def _sweep_stale(enqueue: Enqueue) -> object:
    return task_recovery.sweep_stale(enqueue=enqueue)


JOB_TASK_KIND = JobKind(
    name=JOB_TASK,
    task_name=JOB_TASK_NAME,
    run=_run,
    # A task that is not background work is a reference run: gradings of its version wait for it.
    priority=Priority.NEXT,
    recover_on_start=_recover_on_start,
    sweep_stale=_sweep_stale,
)


def register_jobs() -> None:
    registry.register(JOB_TASK_KIND)
