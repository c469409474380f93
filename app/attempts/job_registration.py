"""How the plumbing runs and recovers gradings: the attempt domain's JobKind, registered by
register_jobs() from `dojo serve` (app/startup.py) and from the `dojo worker` entry (app/worker.py).

The handlers look their functions up when called, so tests may replace them.
"""

from __future__ import annotations

from app.attempts import grading_job, recovery, slots, sweeper
from app.attempts.job_kinds import GRADE_TASK_NAME, GRADING, grade_job
from app.dispatch import registry
from app.dispatch.registry import Backlog, Enqueue, JobKind, Placement, Priority


def _run(attempt_id: int, worker_prefix: str) -> object:
    return grading_job.grade_attempt(attempt_id, worker_prefix=worker_prefix)


def _recover_on_start(enqueue: Enqueue) -> object:
    return recovery.recover_on_start(enqueue=enqueue)


def _sweep_stale(enqueue: Enqueue) -> object:
    return recovery.sweep_stale(enqueue=enqueue)


def _redispatch_lost(send: Enqueue, backlog: Backlog) -> list[int]:
    return sweeper.redispatch_queued(send=lambda attempt_id: send(grade_job(attempt_id)), backlog=backlog)


def _on_send_failed(attempt_id: int) -> None:
    sweeper.mark_unsent(attempt_id)


def _place(attempt_id: int) -> Placement:
    return slots.place(attempt_id)


GRADING_KIND = JobKind(
    name=GRADING,
    task_name=GRADE_TASK_NAME,
    run=_run,
    priority=Priority.FIRST,  # a candidate is waiting (an interview's candidate on the clock: first, by _place)
    recover_on_start=_recover_on_start,
    sweep_stale=_sweep_stale,
    redispatch_lost=_redispatch_lost,
    on_send_failed=_on_send_failed,
    place=_place,
)


def register_jobs() -> None:
    registry.register(GRADING_KIND)
