"""Production runner: the harness under bubblewrap, as a dedicated uid, with rlimits and a watchdog."""

from __future__ import annotations

import sys
from pathlib import Path

from app.sandbox.bwrap_sandbox import SandboxSpec, start_sandbox
from app.sandbox.host import bwrap_path
from app.sandbox.job import HarnessJob, HarnessOutcome
from app.sandbox.workspace import check_file_names


class BwrapRunner:
    """Runs each job in a fresh bubblewrap sandbox started for it; nothing survives the run."""

    name = "bwrap"

    def __init__(
        self,
        *,
        python: str | None = None,
        bwrap: str | None = None,
        workspace_parent: Path | None = None,
        allow_processes: bool = False,
    ) -> None:
        # allow_processes=False (default): the harness may start threads but no processes, so
        # RLIMIT_AS bounds its total memory (there is no memory cgroup to do it).
        self.allow_processes = allow_processes
        self.python = python or sys.executable
        self.bwrap = bwrap or bwrap_path()
        self.workspace_parent = workspace_parent

    def run(self, job: HarnessJob) -> HarnessOutcome:
        """Start a sandbox, run the job in it at once and classify the outcome; all of it is removed."""
        check_file_names(list(job.candidate_files))
        spec = SandboxSpec(limits=job.limits, allow_processes=self.allow_processes)
        sandbox = start_sandbox(spec, python=self.python, bwrap=self.bwrap, workspace_parent=self.workspace_parent)
        try:
            return sandbox.run(job).outcome
        finally:
            sandbox.discard()
