"""Development-only runner: the harness in a plain subprocess with rlimits. NOT a security boundary."""

from __future__ import annotations

import os
import sys
from functools import partial
from pathlib import Path

from app.core.settings import get_settings
from app.sandbox import protocol
from app.sandbox.job import HarnessJob, HarnessOutcome
from app.sandbox.judge_process import AgentChannel, has_judge, start_judge
from app.sandbox.outcome import RunFacts, build_outcome
from app.sandbox.progress import progress_streams
from app.sandbox.result_file import read_result_file
from app.sandbox.rlimits import apply_rlimits, lower_priority, rlimit_table, with_nproc_headroom
from app.sandbox.supervise import kill_group, run_supervised
from app.sandbox.workspace import create_workspace

THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def _limit_child(table: list[tuple[int, int, int]], nice: int) -> None:
    """In the child before exec: the run's limits and its lower CPU priority (SANDBOX_NICE)."""
    apply_rlimits(table)
    lower_priority(nice)


def _end_group(holder: dict[str, int]) -> None:
    """The judge is done and the harness did not exit on its own: end its process group."""
    if "pid" in holder:
        kill_group(holder["pid"])


def _started(holder: dict[str, int], pid: int, channel: AgentChannel) -> None:
    """The harness has started: keep its pid, and close the agent's ends of the channel here (the child
    has its copies) through the channel, which closes each fd once. Closing them by number as well
    closed them twice, and a second close can hit a descriptor another grading thread has just opened."""
    holder.update(pid=pid)
    channel.close_agent_ends()


class SubprocessRunner:
    """Runs the harness as the service's own user; only rlimits, a session and a timeout contain it."""

    name = "subprocess"

    def __init__(self, *, python: str | None = None, workspace_parent: Path | None = None) -> None:
        self.python = python or sys.executable
        self.workspace_parent = workspace_parent

    def run(self, job: HarnessJob) -> HarnessOutcome:
        """Run one job in a fresh temp directory and classify the outcome."""
        limits = job.limits
        workspace = create_workspace(parent=self.workspace_parent)
        try:
            workspace.fill(candidate_files=job.candidate_files, job_input=job.input)
        except BaseException:
            workspace.remove()
            raise
        table = with_nproc_headroom(rlimit_table(limits))
        nice = get_settings().sandbox_nice
        harness_dir = os.path.realpath(job.harness_dir)
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(workspace.scratch_dir),
            "TMPDIR": str(workspace.scratch_dir),
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0",
            **THREAD_ENV,
            protocol.CANDIDATE_DIR_VAR: str(workspace.candidate_dir),
            protocol.HARNESS_DIR_VAR: harness_dir,
            protocol.INPUT_VAR: str(workspace.input_file),
            protocol.OUT_VAR: str(workspace.out_dir),
        }
        progress_read, progress_write = os.pipe()
        env[protocol.PROGRESS_FD_VAR] = str(progress_write)
        streams = progress_streams(job.on_progress, progress_read)
        channel = AgentChannel.open()
        judge = None
        agent_fds: tuple[int, ...] = ()
        try:
            if has_judge(harness_dir):
                env[protocol.AGENT_FDS_VAR] = channel.agent_env
                agent_fds = channel.agent_fds
                judge = start_judge(job, channel, python=self.python, nice=nice)
                if judge.progress_fd is not None:
                    streams = {**streams, **progress_streams(job.on_progress, judge.progress_fd)}
            else:
                channel.close_all()
            holder: dict[str, int] = {}
            if judge is not None:
                judge.watch(lambda: _end_group(holder))
            run = run_supervised(
                [self.python, "-I", "-B", os.path.join(harness_dir, "main.py")],
                env=env,
                cwd=str(workspace.scratch_dir),
                wall_seconds=limits.wall_seconds,
                max_output_bytes=limits.max_output_bytes,
                preexec_fn=partial(_limit_child, table, nice),
                pass_fds=(progress_write, *agent_fds),
                close_after_start=(progress_write,),
                stream_fds=streams,
                on_start=lambda pid: _started(holder, pid, channel),
            )
            if judge is not None:
                result = judge.finish()
            else:
                result = read_result_file(workspace.out_dir, max_bytes=limits.max_result_bytes)
        finally:
            channel.close_all()
            os.close(progress_read)
            if judge is not None:
                judge.retire()
            workspace.remove()
        code = run.returncode
        facts = RunFacts(
            wall_seconds=run.wall_seconds,
            timed_out=run.timed_out,
            output_exceeded=run.output_exceeded,
            exit_code=code if code is not None and code >= 0 else None,
            exit_signal=-code if code is not None and code < 0 else None,
            stdout=run.stdout,
            stderr=run.stderr,
            result=result,
            judge_failed=judge is not None and judge.failed,
        )
        return build_outcome(facts, limits=limits)
