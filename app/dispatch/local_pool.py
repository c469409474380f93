"""The embedded dispatcher: a bounded pool of worker threads inside `dojo serve`, running every
registered job kind (app/dispatch/registry.py).

Threads suit this work: each grading spends its time waiting on a sandboxed child process, so the
pool's size (one per core by default) bounds how many sandboxes run at once.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from app.core.settings import get_settings
from app.dispatch import registry, warm_sandboxes
from app.dispatch.registry import Job, Priority

log = logging.getLogger(__name__)

# Stopping goes before any job; then each job's Priority (gradings on an interview's clock, practice
# gradings, reference runs, then background work such as the mutation matrix and rejudges).
STOP_PRIORITY = 0
# An idle thread checks this often that its standby sandbox is still usable.
_IDLE_CHECK_SECONDS = 60.0
# How long a new thread's first standby may take to import torch before the pool counts as started.
_WARM_START_SECONDS = 120.0


def default_concurrency() -> int:
    """settings.worker_concurrency, or one worker per CPU core when it is 0."""
    configured = get_settings().worker_concurrency
    return configured if configured > 0 else (os.cpu_count() or 1)


@dataclass(frozen=True, eq=False)
class WorkItem:
    priority: int
    sequence: int  # first come, first served among equals
    key: str
    owner: str | None  # whose slot it takes (app.dispatch.registry.Placement); None: nobody's
    work: Callable[[], object] | None  # None: the thread that takes it stops


class WorkQueue:
    """Waiting work, taken best first (lowest priority, then first come) among the items a thread may take.

    Background items go only to the threads that take background work, and an item whose owner already
    has one running waits until that one is done: one user holds one slot at a time, so another user's
    job always finds the next free slot instead of waiting behind a second (or third) job of theirs.
    """

    def __init__(self) -> None:
        self._items: list[WorkItem] = []
        self._running: Counter[str] = Counter()  # owner -> items taken and not done yet
        self._changed = threading.Condition()

    def put(self, item: WorkItem) -> None:
        with self._changed:
            self._items.append(item)
            self._changed.notify_all()

    def take(self, *, background: bool, timeout: float) -> WorkItem | None:
        """The best item this thread may take, or None after `timeout` seconds without one. Call done()
        with it when it has run."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while (item := self._best(background)) is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(left)
            self._items.remove(item)
            if item.owner is not None:
                self._running[item.owner] += 1
            return item

    def done(self, item: WorkItem) -> None:
        """The item has run: its owner's next item may be taken."""
        if item.owner is None:
            return
        with self._changed:
            self._running[item.owner] -= 1
            if self._running[item.owner] <= 0:
                del self._running[item.owner]
            self._changed.notify_all()

    def _best(self, background: bool) -> WorkItem | None:
        # A linear scan: the queue holds a few jobs per waiting user, and the owner rule changes which
        # item is best whenever a job ends, which a heap's order cannot follow.
        takeable = [item for item in self._items
                    if (background or item.priority < Priority.BACKGROUND)
                    and (item.owner is None or item.owner not in self._running)]  # fmt: skip
        return min(takeable, key=lambda item: (item.priority, item.sequence), default=None)


class LocalPool:
    """N worker threads fed from an in-memory priority queue, plus a sweeper for stale jobs of every kind.

    With two threads or more, the first never takes background work: a grading that arrives while
    the mutation matrix runs finds a thread free. A user's jobs run one at a time (WorkQueue), and an
    interview's gradings on the clock go before practice ones. With warm sandboxes on, each thread
    keeps its next sandbox started (app.sandbox.warm).
    """

    def __init__(
        self,
        *,
        concurrency: int | None = None,
        job: Callable[[Job], object] | None = None,
        warm: bool | None = None,
    ) -> None:
        """`job` runs every job instead of its kind's run function (a pool that only keeps warm)."""
        self.concurrency = concurrency or default_concurrency()
        self._job = job or (lambda job: registry.kind_of(job).run(job.id, "local"))
        self.warm = get_settings().warm_sandboxes if warm is None else warm
        self._queue = WorkQueue()
        self._sequence = itertools.count()
        self._pending: set[str] = set()  # keys waiting in the queue (an id already waiting is not queued twice)
        self._running = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._warmed = threading.Semaphore(0)  # one release per thread whose first standby is ready (or none)

    def enqueue(self, job: Job) -> None:
        """Queue a job once, by its place in line (priority and owner); a job already waiting is not
        queued again."""
        registry.kind_of(job)  # an unknown kind fails here, in the caller
        with self._lock:
            if job.key in self._pending:
                return
            self._pending.add(job.key)
        try:
            place = registry.placement_of(job)
        except BaseException:
            with self._lock:
                self._pending.discard(job.key)
            raise
        self._queue.put(WorkItem(place.priority, next(self._sequence), job.key, place.owner,
                                 lambda: self._job(job)))

    def start(self) -> None:
        """Start the grading threads and the stale-attempt sweeper, then recover lost work."""
        warm_sandboxes.start_judge_forks()
        for n in range(self.concurrency):
            takes_background = n > 0 or self.concurrency == 1
            thread = threading.Thread(target=self._work, args=(takes_background,), name=f"dojo-grader-{n}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)
        sweeper = threading.Thread(target=self._sweep, name="dojo-sweeper", daemon=True)
        sweeper.start()
        self._threads.append(sweeper)
        registry.recover_all(self.enqueue)
        log.info("local grading pool started with %d worker(s)", self.concurrency)

    def wait_until_warm(self, timeout: float = _WARM_START_SECONDS) -> bool:
        """Wait until every thread's first standby sandbox has torch imported (True), at most `timeout`
        seconds: `dojo serve` does, so the first grading after a start is as fast as any other."""
        deadline = time.monotonic() + timeout
        return all(self._warmed.acquire(timeout=max(0.0, deadline - time.monotonic()))
                   for _ in range(self.concurrency))  # fmt: skip

    def stop(self, timeout: float = 10.0) -> None:
        """Stop taking work; gradings still running after the timeout are recovered on next start."""
        self._stop.set()
        for _ in range(self.concurrency):
            self._queue.put(WorkItem(STOP_PRIORITY, next(self._sequence), "stop", None, None))
        for thread in self._threads:
            thread.join(timeout=timeout / max(1, len(self._threads)))

    def idle(self) -> bool:
        """True when nothing is queued or being graded by this pool."""
        with self._lock:
            return not self._pending and not self._running

    def _work(self, takes_background: bool) -> None:
        keeper = warm_sandboxes.start_keeping_warm() if self.warm else None
        if keeper is not None:
            keeper.wait_ready(_WARM_START_SECONDS)
        self._warmed.release()
        try:
            while not self._stop.is_set():
                item = self._queue.take(background=takes_background, timeout=_IDLE_CHECK_SECONDS)
                if item is None:
                    if keeper is not None:
                        keeper.prepare()  # replace a standby that died or waited too long
                    continue
                if item.work is None:
                    return
                # Out of the queue now: the same key enqueued while this runs (an attempt that went
                # back to wait for its reference, and was released at once) is queued again.
                with self._lock:
                    self._pending.discard(item.key)
                    self._running += 1
                try:
                    item.work()
                except Exception:  # one broken job must not take a pool thread down
                    log.exception("%s: job failed", item.key)
                finally:
                    self._queue.done(item)
                    with self._lock:
                        self._running -= 1
        finally:
            if keeper is not None:
                warm_sandboxes.stop_keeping_warm()

    def _sweep(self) -> None:
        settings = get_settings()
        every = max(0.5, min(settings.heartbeat_seconds, settings.stale_after_seconds / 2))
        while not self._stop.wait(every):
            try:
                registry.sweep_all(self.enqueue)
            except Exception:
                log.exception("stale-job sweep failed")
