"""The two ways the corpus runs a submission: a cold sandbox of its own, or a worker's warm standby."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.job import HarnessOutcome
from app.sandbox.warm import WarmKeeper

from .helpers import TEST_LIMITS, MiB, job_for, live_children, live_sandbox_processes

# torch does not import under the corpus's 512 MiB address-space cap; a warm standby preloads it.
WARM_TEST_LIMITS = replace(TEST_LIMITS, memory_bytes=768 * MiB)


class ColdRuns:
    """Each submission in a sandbox started for it (BwrapRunner)."""

    def __init__(self, workspace_parent: Path, *, allow_processes: bool = False) -> None:
        self.workspace_parent = workspace_parent
        self.runner = BwrapRunner(workspace_parent=workspace_parent, allow_processes=allow_processes)

    def run(self, source: str) -> HarnessOutcome:
        return self.runner.run(job_for(source))

    def assert_nothing_left(self) -> None:
        assert live_sandbox_processes() == []
        assert live_children() == []
        assert list(self.workspace_parent.iterdir()) == [], "the run's workspace was not removed"


class WarmRuns:
    """Each submission in the standby a WarmKeeper had started (with its preload imported) before it came."""

    def __init__(self, keeper: WarmKeeper) -> None:
        assert keeper.workspace_parent is not None
        self.keeper = keeper
        self.workspace_parent = keeper.workspace_parent

    def run(self, source: str) -> HarnessOutcome:
        before = self.keeper.warm_runs
        outcome = self.keeper.run(job_for(source, limits=self.keeper.spec.limits))
        assert self.keeper.warm_runs == before + 1, "the job did not run in the standby sandbox"
        return outcome

    def assert_nothing_left(self) -> None:
        """Only the next standby lives on: one pid namespace, one workspace, two children of ours (the
        standby sandbox and the judge waiting beside it)."""
        standby_pid = self.keeper.standby_host_pid()
        assert standby_pid is not None, "no next standby was started"
        inside = [pid for pid in live_sandbox_processes() if pid != standby_pid]
        assert len({_pid_namespace(pid) for pid in inside} - {None}) <= 1, "a process of the job outlived it"
        assert set(live_children()) <= {standby_pid, self.keeper.standby_judge_host_pid()}
        assert len(list(self.workspace_parent.iterdir())) == 1, "the run's workspace was not removed"


def _pid_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:  # gone meanwhile
        return None
