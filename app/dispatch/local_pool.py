"""The embedded dispatcher: a bounded pool of grading threads inside `dojo serve`.

Threads suit this work: each grading spends its time waiting on a sandboxed child process, so the
pool's size (one per core by default) bounds how many sandboxes run at once.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import threading
import time
from collections.abc import Callable

from app.core.settings import get_settings
from app.dispatch import recovery, task_recovery, warm_sandboxes
from app.dispatch.jobs import grade_attempt

log = logging.getLogger(__name__)

# Candidates wait on gradings; validation and rejudge runs are background work and yield to them.
GRADING_PRIORITY, BACKGROUND_PRIORITY, STOP_PRIORITY = 1, 2, 0
# An idle thread checks this often that its standby sandbox is still usable.
_IDLE_CHECK_SECONDS = 60.0
# How long a new thread's first standby may take to import torch before the pool counts as started.
_WARM_START_SECONDS = 120.0


def default_concurrency() -> int:
    """settings.worker_concurrency, or one worker per CPU core when it is 0."""
    configured = get_settings().worker_concurrency
    return configured if configured > 0 else (os.cpu_count() or 1)


class LocalPool:
    """N grading threads fed from an in-memory priority queue, plus a sweeper for stale attempts and tasks.

    With warm sandboxes on, each thread keeps its next sandbox started (app.sandbox.warm).
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
        # (priority, sequence, key, work): gradings first, then first come first served.
        self._queue: queue.PriorityQueue[tuple[int, int, str, Callable[[], object] | None]] = queue.PriorityQueue()
        self._sequence = itertools.count()
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._warmed = threading.Semaphore(0)  # one release per thread whose first standby is ready (or none)

    def enqueue(self, attempt_id: int) -> None:
        """Queue an attempt once; an id already waiting is not queued again."""
        self._submit(f"attempt:{attempt_id}", lambda: self._job(attempt_id), GRADING_PRIORITY)

    def enqueue_task(self, task_id: int) -> None:
        """Queue a scenario-job task (a validation or rejudge run) behind waiting gradings."""
        from app.dispatch.job_tasks import run_job_task

        self._submit(f"task:{task_id}", lambda: run_job_task(task_id, worker_prefix="local"), BACKGROUND_PRIORITY)

    def _submit(self, key: str, work: Callable[[], object], priority: int) -> None:
        with self._lock:
            if key in self._pending:
                return
            self._pending.add(key)
        self._queue.put((priority, next(self._sequence), key, work))

    def start(self) -> None:
        """Start the grading threads and the stale-attempt sweeper, then recover lost work."""
        for n in range(self.concurrency):
            thread = threading.Thread(target=self._work, name=f"dojo-grader-{n}", daemon=True)
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
            return not self._pending

    def _work(self) -> None:
        keeper = warm_sandboxes.start_keeping_warm() if self.warm else None
        if keeper is not None:
            keeper.wait_ready(_WARM_START_SECONDS)
        self._warmed.release()
        try:
            while not self._stop.is_set():
                try:
                    _priority, _n, key, work = self._queue.get(timeout=_IDLE_CHECK_SECONDS)
                except queue.Empty:
                    if keeper is not None:
                        keeper.prepare()  # replace a standby that died or waited too long
                    continue
                if work is None:
                    return
                try:
                    work()
                except Exception:  # one broken job must not take a pool thread down
                    log.exception("%s: job failed", key)
                finally:
                    with self._lock:
                        self._pending.discard(key)
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
