"""The embedded dispatcher: a bounded pool of grading threads inside `dojo serve`.

Threads suit this work: each grading spends its time waiting on a sandboxed child process, so the
pool's size (one per core by default) bounds how many sandboxes run at once.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable

from app.core.settings import get_settings
from app.dispatch import recovery, task_recovery, warm_sandboxes
from app.dispatch.jobs import grade_attempt

log = logging.getLogger(__name__)

# Candidates wait on gradings; a version's reference run comes next (gradings of that version wait
# for it); the rest of a validation (the mutation matrix) and rejudge runs are background work.
STOP_PRIORITY, GRADING_PRIORITY, REFERENCE_PRIORITY, BACKGROUND_PRIORITY = 0, 1, 2, 3
# An idle thread checks this often that its standby sandbox is still usable.
_IDLE_CHECK_SECONDS = 60.0
# How long a new thread's first standby may take to import torch before the pool counts as started.
_WARM_START_SECONDS = 120.0


def default_concurrency() -> int:
    """settings.worker_concurrency, or one worker per CPU core when it is 0."""
    configured = get_settings().worker_concurrency
    return configured if configured > 0 else (os.cpu_count() or 1)


WorkItem = tuple[int, int, str, Callable[[], object] | None]  # priority, sequence, key, work (None: stop)


class WorkQueue:
    """A priority queue (lowest first, then first come) whose background items only some threads take."""

    def __init__(self) -> None:
        self._heap: list[WorkItem] = []
        self._changed = threading.Condition()

    def put(self, item: WorkItem) -> None:
        with self._changed:
            heapq.heappush(self._heap, item)
            self._changed.notify_all()

    def get(self, *, background: bool, timeout: float) -> WorkItem | None:
        """The first item this thread may take, or None after `timeout` seconds without one."""
        deadline = time.monotonic() + timeout
        with self._changed:
            # The heap's top is its best item: when it is background work, so is everything else.
            while not self._heap or (self._heap[0][0] >= BACKGROUND_PRIORITY and not background):
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(left)
            return heapq.heappop(self._heap)


class LocalPool:
    """N grading threads fed from an in-memory priority queue, plus a sweeper for stale attempts and tasks.

    With two threads or more, the first never takes background work: a grading that arrives while
    the mutation matrix runs finds a thread free. With warm sandboxes on, each thread keeps its next
    sandbox started (app.sandbox.warm).
    """

    def __init__(
        self,
        *,
        concurrency: int | None = None,
        job: Callable[[int], object] | None = None,
        warm: bool | None = None,
    ) -> None:
        self.concurrency = concurrency or default_concurrency()
        self._job = job or (lambda attempt_id: grade_attempt(attempt_id, worker_prefix="local"))
        self.warm = get_settings().warm_sandboxes if warm is None else warm
        self._queue = WorkQueue()
        self._sequence = itertools.count()
        self._pending: set[str] = set()  # keys waiting in the queue (an id already waiting is not queued twice)
        self._running = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._warmed = threading.Semaphore(0)  # one release per thread whose first standby is ready (or none)

    def enqueue(self, attempt_id: int) -> None:
        """Queue an attempt once; an id already waiting is not queued again."""
        self._submit(f"attempt:{attempt_id}", lambda: self._job(attempt_id), GRADING_PRIORITY)

    def enqueue_task(self, task_id: int, background: bool = True) -> None:
        """Queue a scenario-job task behind waiting gradings: a reference run, or background work."""
        from app.dispatch.job_tasks import run_job_task

        self._submit(f"task:{task_id}", lambda: run_job_task(task_id, worker_prefix="local"),
                     BACKGROUND_PRIORITY if background else REFERENCE_PRIORITY)

    def _submit(self, key: str, work: Callable[[], object], priority: int) -> None:
        with self._lock:
            if key in self._pending:
                return
            self._pending.add(key)
        self._queue.put((priority, next(self._sequence), key, work))

    def start(self) -> None:
        """Start the grading threads and the stale-attempt sweeper, then recover lost work."""
        for n in range(self.concurrency):
            takes_background = n > 0 or self.concurrency == 1
            thread = threading.Thread(target=self._work, args=(takes_background,), name=f"dojo-grader-{n}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)
        sweeper = threading.Thread(target=self._sweep, name="dojo-sweeper", daemon=True)
        sweeper.start()
        self._threads.append(sweeper)
        recovery.recover_on_start(enqueue=self.enqueue)
        task_recovery.recover_on_start(enqueue=self.enqueue_task)
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
            self._queue.put((STOP_PRIORITY, next(self._sequence), "stop", None))
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
                item = self._queue.get(background=takes_background, timeout=_IDLE_CHECK_SECONDS)
                if item is None:
                    if keeper is not None:
                        keeper.prepare()  # replace a standby that died or waited too long
                    continue
                _priority, _n, key, work = item
                if work is None:
                    return
                # Out of the queue now: the same key enqueued while this runs (an attempt that went
                # back to wait for its reference, and was released at once) is queued again.
                with self._lock:
                    self._pending.discard(key)
                    self._running += 1
                try:
                    work()
                except Exception:  # one broken job must not take a pool thread down
                    log.exception("%s: job failed", key)
                finally:
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
                recovery.sweep_stale(enqueue=self.enqueue)
                task_recovery.sweep_stale(enqueue=self.enqueue_task)
            except Exception:
                log.exception("stale-attempt sweep failed")
