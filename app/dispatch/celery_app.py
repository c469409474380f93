"""The Celery application: broker, queue and reliability settings shared by web (sender) and workers.

Importing this module never imports the web app or the grader; the web process only sends tasks by
name (each job kind's task_name), the worker registers one task per kind in app/worker.py.
"""

from __future__ import annotations

from functools import lru_cache

from celery import Celery

from app.core.settings import get_settings, live_settings
from app.dispatch import registry
from app.dispatch.registry import Job

# The queue name can be changed per deployment (and per test run, so runs never share a queue).
# DOJO_QUEUE, read at each use (app.core.settings.LiveSettings).
DEFAULT_QUEUE = "dojo-grading"
SOFT_TIME_LIMIT_SECONDS = 600
HARD_TIME_LIMIT_SECONDS = 660


def queue_name() -> str:
    """The queue gradings (and reference runs) are sent to; workers consume it first."""
    return live_settings().dojo_queue.strip() or DEFAULT_QUEUE


def background_queue_name() -> str:
    """The queue of background work (the mutation matrix, rejudges): taken only when the other is empty."""
    return queue_name() + "-background"


@lru_cache
def get_celery() -> Celery:
    """The configured Celery app (one per process)."""
    settings = get_settings()
    app = Celery("dojo", broker=settings.broker_url)
    app.conf.update(
        task_default_queue=queue_name(),
        # A task is acknowledged only when it has finished, and requeued when the process running it
        # dies, so a crash never loses a submission. The Attempt row's claim makes redelivery harmless.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        # One grading at a time per worker process: no task waits behind a long grading elsewhere.
        worker_prefetch_multiplier=1,
        task_soft_time_limit=SOFT_TIME_LIMIT_SECONDS,
        task_time_limit=HARD_TIME_LIMIT_SECONDS,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        # A message whose worker vanished (machine lost) comes back after this; the heartbeat sweep
        # in every worker usually re-dispatches it much sooner.
        broker_transport_options={
            "visibility_timeout": HARD_TIME_LIMIT_SECONDS + 120,
            # A broker that does not answer fails a send within seconds, so a request is not held up;
            # the attempt stays queued and the sweeper sends it when the broker is back.
            "socket_connect_timeout": 2,
            "socket_timeout": 5,
            # Poll the queues in the order the worker lists them (gradings, then background work)
            # instead of in turn, so a queued grading always goes before queued matrix runs.
            "queue_order_strategy": "priority",
            # kombu's default steps, named: BROKER_PRIORITY below maps every Priority onto one of them.
            "priority_steps": [0, 3, 6, 9],
        },
        broker_connection_timeout=2,
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5},
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )
    return app


# Redis keeps one list per priority step (kombu's priority_steps: 0, 3, 6, 9) and a worker pops them in
# the order step 0 of every queue it consumes, then step 3, ...: each Priority has a step of its own, so
# gradings on an interview's clock go before practice gradings, then reference runs, then background
# work (which stays in its own queue as well). The local pool's order, on the broker.
BROKER_PRIORITY = {
    registry.Priority.ON_THE_CLOCK: 0,
    registry.Priority.FIRST: 3,
    registry.Priority.NEXT: 6,
    registry.Priority.BACKGROUND: 9,
}


def send(job: Job) -> None:
    """Put one job on the broker: background work behind the rest, gradings on the clock first."""
    kind = registry.kind_of(job)
    place = registry.placement_of(job)
    get_celery().send_task(kind.task_name, args=[job.id], priority=BROKER_PRIORITY[place.priority],
                           queue=background_queue_name() if job.background else queue_name())


def queue_backlog() -> int:
    """Messages waiting in the grading queue on the Redis broker (kombu keeps one list per priority)."""
    import redis

    client = redis.Redis.from_url(get_settings().broker_url, socket_connect_timeout=2, socket_timeout=2)
    try:
        name = queue_name()
        keys = [name, *(f"{name}\x06\x16{priority}" for priority in range(1, 10))]
        return sum(int(client.llen(key)) for key in keys)
    finally:
        client.close()
