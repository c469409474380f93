"""Development-only runner: the harness in a plain subprocess with rlimits. NOT a security boundary."""

from __future__ import annotations

import logging
import os
import sys
import time
from functools import partial
from pathlib import Path

from app.core.settings import get_settings
from app.sandbox import protocol
from app.sandbox.job import HarnessJob, HarnessOutcome
from app.sandbox.judge_process import AgentChannel, has_judge, start_judge
from app.sandbox.judge_server import ForkedProcess, ForkServerError, judge_fork_server
from app.sandbox.outcome import RunFacts, build_outcome
from app.sandbox.progress import progress_streams
from app.sandbox.result_file import read_result_file
from app.sandbox.rlimits import apply_rlimits, lower_priority, rlimit_table, with_nproc_headroom
from app.sandbox.supervise import Child, kill_group, start_child, supervise
from app.sandbox.workspace import create_workspace

logger = logging.getLogger(__name__)

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


def _forked_agent(main: str, env: dict[str, str], cwd: str, progress_fd: int, agent_fds: tuple[int, int],
                  table: list[tuple[int, int, int]], nice: int, *, python: str) -> ForkedProcess | None:
    """The agent forked from this process's judge fork server, torch already imported (about 1.2 s of
    CPU less a run); None when there is none ready (a one-shot `dojo check`) or it fails, and the agent
    starts as a new interpreter. Its output comes through pipes of ours, as a Popen child's does."""
    if not get_settings().judge_fork_server:
        return None
    server = judge_fork_server(python)
    if server is None:
        return None
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        # The progress pipe, then the channel's two ends in agent_env's order.
        fd_env = {protocol.PROGRESS_FD_VAR: [0], protocol.AGENT_FDS_VAR: [1, 2]}
        proc = server.spawn_agent(main=main, env=env, cwd=cwd, stdout=out_w, stderr=err_w,
                                  fds=(progress_fd, *agent_fds), fd_env=fd_env, rlimits=table, nice=nice)
    except ForkServerError:
        logger.exception("the judge fork server failed: starting the agent as a new process")
        for fd in (out_r, err_r):
            os.close(fd)
        return None
    finally:
        os.close(out_w)
        os.close(err_w)
    proc.stdout, proc.stderr = os.fdopen(out_r, "rb"), os.fdopen(err_r, "rb")
    return proc


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
            main = os.path.join(harness_dir, "main.py")
            started = time.monotonic()
            try:
                # Only a split harness's agent (one with a judge) is forked: it imports torch anyway, so the
                # preloaded import changes nothing its limits see; a harness without one may not import it.
                proc: Child | None = None
                if judge is not None:
                    proc = _forked_agent(main, env, str(workspace.scratch_dir), progress_write, channel.agent_fds,
                                         table, nice, python=self.python)
                if proc is None:
                    proc = start_child([self.python, "-I", "-B", main], env=env, cwd=str(workspace.scratch_dir),
                                       preexec_fn=partial(_limit_child, table, nice),
                                       pass_fds=(progress_write, *agent_fds))
            finally:
                os.close(progress_write)  # the child holds its copy; ours would keep the pipe from reaching EOF
            _started(holder, proc.pid, channel)
            run = supervise(proc, started=started, wall_seconds=limits.wall_seconds,
                            max_output_bytes=limits.max_output_bytes, stream_fds=streams)
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
