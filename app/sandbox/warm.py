"""Warm single-use sandboxes: each worker slot keeps its next sandbox started, with torch imported.

A WarmKeeper belongs to one worker thread (a local pool thread, a Celery pool process). After each
job it starts the next sandbox, which imports torch while the worker stores results and waits; the
next job then skips that import. Every sandbox still runs exactly one job and is destroyed, so
isolation is the same as a cold start: what the waiting sandbox can see is empty read-only job
directories, and its job's files are written only when the job is handed over. A standby that
died, waited too long or was started for other limits is thrown away and the job runs cold.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from pathlib import Path

from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.bwrap_sandbox import Sandbox, SandboxSpec, start_sandbox
from app.sandbox.host import bwrap_path
from app.sandbox.job import HarnessJob, HarnessOutcome, Limits
from app.sandbox.workspace import check_file_names

logger = logging.getLogger(__name__)

DEFAULT_PRELOAD = ("torch",)
DEFAULT_MAX_IDLE_SECONDS = 1800.0


class WarmKeeper:
    """One worker slot's standby sandbox: started ahead, used for exactly one job, then replaced."""

    def __init__(
        self,
        *,
        limits: Limits,
        preload: tuple[str, ...] = DEFAULT_PRELOAD,
        max_idle_seconds: float = DEFAULT_MAX_IDLE_SECONDS,
        allow_processes: bool = False,
        python: str | None = None,
        bwrap: str | None = None,
        workspace_parent: Path | None = None,
    ) -> None:
        self.spec = SandboxSpec(limits=limits, allow_processes=allow_processes, preload=preload)
        self.max_idle_seconds = max_idle_seconds
        self.python = python or sys.executable
        self.bwrap = bwrap or bwrap_path()
        self.workspace_parent = workspace_parent
        self.warm_runs = 0  # jobs that ran in a standby sandbox
        self.cold_runs = 0  # jobs that had to start their own
        self._standby: Sandbox | None = None
        # The standby belongs to the thread that keeps it (bubblewrap dies with the thread that
        # started it); runs from other threads, e.g. a validation's helper threads, start cold.
        self._owner = threading.get_ident()

    def prepare(self) -> None:
        """Make sure a usable standby is waiting: start one, or replace one that died or went stale."""
        if self._standby is not None and self._unusable(self._standby, self.spec.limits) is None:
            return
        self._drop_standby()
        try:
            self._standby = start_sandbox(
                self.spec, python=self.python, bwrap=self.bwrap, workspace_parent=self.workspace_parent
            )
        except Exception:  # no free slot, bwrap gone: the next job simply starts cold
            logger.exception("could not start a standby sandbox")

    def run(self, job: HarnessJob) -> HarnessOutcome:
        """Run the job in the standby when it can take it, else in a fresh sandbox; then start the next."""
        check_file_names(list(job.candidate_files))
        if threading.get_ident() != self._owner:
            return self._cold_runner().run(job)
        standby, self._standby = self._standby, None
        try:
            reason = self._unusable(standby, job.limits) if standby is not None else "none was ready"
            if standby is not None and reason is None:
                try:
                    attempt = standby.run(job)
                finally:
                    standby.discard()
                if attempt.accepted:
                    self.warm_runs += 1
                    logger.info("job ran in a warm standby sandbox")
                    return attempt.outcome
                reason = "it stopped before taking the job"
            elif standby is not None:
                standby.discard()
            logger.info("standby sandbox not used (%s): running the job in a cold sandbox", reason)
            self.cold_runs += 1
            return self._cold_runner().run(job)
        finally:
            self.prepare()

    def wait_ready(self, timeout: float) -> bool:
        """Wait until the standby has torch imported (True), or for `timeout` seconds (False)."""
        return self._standby is not None and self._standby.wait_ready(timeout)

    def close(self) -> None:
        """Stop the standby (when the worker stops)."""
        self._drop_standby()

    def standby_host_pid(self) -> int | None:
        """Host pid of the waiting standby's outermost process, if one waits (tests and diagnostics)."""
        return self._standby.host_pid if self._standby is not None else None

    def standby_judge_host_pid(self) -> int | None:
        """Host pid of the judge waiting beside the standby sandbox, if one waits (tests and diagnostics)."""
        return self._standby.judge_host_pid if self._standby is not None else None

    def _unusable(self, standby: Sandbox, limits: Limits) -> str | None:
        if not standby.alive():
            return "it had stopped"
        if time.monotonic() - standby.started_at > self.max_idle_seconds:
            return "it waited too long"
        if not standby.spec.fits(limits):
            return "it was started for other limits"
        return None

    def _drop_standby(self) -> None:
        standby, self._standby = self._standby, None
        if standby is not None:
            standby.discard()

    def _cold_runner(self) -> BwrapRunner:
        return BwrapRunner(
            python=self.python, bwrap=self.bwrap, workspace_parent=self.workspace_parent,
            allow_processes=self.spec.allow_processes,
        )  # fmt: skip


class WarmRunner:
    """The Runner for a worker thread that keeps a standby sandbox (see keep_warm)."""

    name = "bwrap"

    def __init__(self, keeper: WarmKeeper) -> None:
        self.keeper = keeper

    def run(self, job: HarnessJob) -> HarnessOutcome:
        return self.keeper.run(job)


_local = threading.local()


def keep_warm(*, limits: Limits, max_idle_seconds: float = DEFAULT_MAX_IDLE_SECONDS) -> WarmKeeper:
    """Give the calling thread a keeper and start its first standby (call from the worker thread itself:
    bubblewrap's --die-with-parent ties the sandbox to the thread that started it)."""
    stop_keeping_warm()
    keeper = WarmKeeper(limits=limits, max_idle_seconds=max_idle_seconds)
    _local.keeper = keeper
    keeper.prepare()
    return keeper


def current_keeper() -> WarmKeeper | None:
    """The calling thread's keeper, if it keeps one."""
    return getattr(_local, "keeper", None)


def stop_keeping_warm() -> None:
    """Stop the calling thread's standby and forget its keeper."""
    keeper = getattr(_local, "keeper", None)
    _local.keeper = None
    if keeper is not None:
        keeper.close()
