"""The job kinds this process knows: the domains register theirs at start-up, the plumbing runs them.

Dispatch never imports a domain. A domain describes each kind of job it owns (how to run one, how to
find the lost ones after a restart or a dead worker) as a JobKind and registers it from one place
(app/attempts/job_registration.py, app/scenarios/job_registration.py); the local pool, the Celery sender and the
`dojo worker` entry only read this registry.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum

log = logging.getLogger(__name__)


class Priority(IntEnum):
    """Order in the local pool and on the broker (lowest first); BACKGROUND also means the broker's
    background queue."""

    ON_THE_CLOCK = 1  # someone waits on it while a clock runs (an interview candidate's grading)
    FIRST = 2  # someone waits on it now (a practice grading)
    NEXT = 3  # other work waits on it (a reference run)
    BACKGROUND = 4  # nobody waits (a mutation matrix, a rejudge)


@dataclass(frozen=True)
class Placement:
    """Where one job goes in line: its priority, and whose slot it takes.

    Jobs with the same owner (a user) are run one at a time, so one user never holds more than one
    grading slot while another user's job waits; a job without an owner is never held back.
    """

    priority: Priority
    owner: str | None = None


@dataclass(frozen=True)
class Job:
    """One unit of work to dispatch: its kind's name, the row id the kind runs, and whether it is
    background work. Only the id travels to a Celery worker (as the argument of the kind's task)."""

    kind: str
    id: int
    background: bool = False

    @property
    def key(self) -> str:
        """The same job enqueued twice has the same key (the local pool queues it once)."""
        return f"{self.kind}:{self.id}"


Enqueue = Callable[[Job], None]
Backlog = Callable[[], int]  # messages waiting on the broker


@dataclass(frozen=True)
class JobKind:
    """How the plumbing runs and recovers one kind of job; the hooks are the owning domain's."""

    name: str
    # The Celery task a worker registers for this kind; messages carry only the row id.
    task_name: str
    # Runs one job by its row id; the second argument names the kind of worker ("local", "celery").
    run: Callable[[int, str], object]
    priority: Priority = Priority.FIRST
    # At start-up: enqueue every job of this kind that is queued, or running under a dead worker.
    recover_on_start: Callable[[Enqueue], object] | None = None
    # Every few seconds: enqueue again the running jobs whose worker stopped beating.
    sweep_stale: Callable[[Enqueue], object] | None = None
    # With a broker, every few seconds: send again the queued jobs whose message failed or was lost;
    # returns the ids sent.
    redispatch_lost: Callable[[Enqueue, Backlog], list[int]] | None = None
    # A send to the broker failed: mark the job so that redispatch_lost finds it.
    on_send_failed: Callable[[int], None] | None = None
    # Reads the job's row: its priority and owner (who it is for). None: the kind's priority, no owner.
    place: Callable[[int], Placement] | None = None


_kinds: dict[str, JobKind] = {}


def register(kind: JobKind) -> None:
    """Make the kind known to this process (again is harmless: the latest description wins)."""
    _kinds[kind.name] = kind


class UnknownJobKind(LookupError):
    """A job of a kind nobody registered: the process skipped its start-up wiring."""


def find(name: str) -> JobKind | None:
    return _kinds.get(name)


def kind_of(job: Job) -> JobKind:
    try:
        return _kinds[job.kind]
    except KeyError:
        raise UnknownJobKind(f"job kind {job.kind!r} is not registered (app.startup.register_jobs)") from None


def priority_of(job: Job) -> Priority:
    return Priority.BACKGROUND if job.background else kind_of(job).priority


def placement_of(job: Job) -> Placement:
    """The job's place in line, from its row when its kind can say (background work: last, nobody's).

    A row that cannot be read now (the database is down, the row is gone) gets the kind's priority and
    no owner: the job still runs, and its claim still keeps a user to one grading at a time.
    """
    kind = kind_of(job)  # an unknown kind fails here, in the caller
    if job.background or kind.place is None:
        return Placement(priority_of(job))
    try:
        return kind.place(job.id)
    except Exception as exc:
        log.warning("%s: could not read its place in line (%s); queued by its kind's priority",
                    job.key, exc.__class__.__name__)
        return Placement(kind.priority)


def kinds() -> list[JobKind]:
    """Every registered kind, in registration order."""
    return list(_kinds.values())


def recover_all(enqueue: Enqueue) -> None:
    for kind in kinds():
        if kind.recover_on_start is not None:
            kind.recover_on_start(enqueue)


def sweep_all(enqueue: Enqueue) -> None:
    for kind in kinds():
        if kind.sweep_stale is not None:
            kind.sweep_stale(enqueue)


def redispatch_all(send: Enqueue, backlog: Backlog) -> list[Job]:
    """One round of every kind's redispatch; stops early only inside a kind (a failed send)."""
    sent: list[Job] = []
    for kind in kinds():
        if kind.redispatch_lost is not None:
            sent += [Job(kind.name, job_id) for job_id in kind.redispatch_lost(send, backlog)]
    return sent
