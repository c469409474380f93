"""One bubblewrap sandbox: started before its job is known, used for exactly one job, then destroyed.

start_sandbox takes a uid slot, makes an empty workspace, binds its directories read-only and starts
enter.py -> bwrap -> launcher -> standby (which may preload torch and then waits). Sandbox.run fills
the workspace with the job, sends the job message, supervises the run from that moment and reads
the launcher's report. Sandbox.discard kills what is left, frees the slot and removes the workspace.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from app.core.settings import get_settings
from app.sandbox import bwrap_command as cmd
from app.sandbox.job import HarnessJob, HarnessOutcome, Limits
from app.sandbox.judge_process import AgentChannel, JudgeProcess, has_judge, standby_judge
from app.sandbox.outcome import RunFacts, build_outcome
from app.sandbox.progress import progress_streams
from app.sandbox.result_file import ResultRead, result_from_read
from app.sandbox.rlimits import CPU_HARD_GRACE_SECONDS, rlimit_table, with_nproc_headroom
from app.sandbox.seccomp import denylist_program
from app.sandbox.slots import Slot, sandbox_uid_slot
from app.sandbox.supervise import SupervisedRun, kill_group, start_child, supervise
from app.sandbox.workspace import Workspace, create_workspace

logger = logging.getLogger(__name__)
_HERE = Path(__file__).resolve().parent
_ENTER = str(_HERE / "enter.py")
_IN_SANDBOX_FILES = ("launcher.py", "protocol.py", "result_file.py", "seccomp.py", "standby.py")
_STARTED = b'{"started": true}\n'
# CPU the standby may use before its job (interpreter start, preloading torch); the job's own
# allowance starts when the job arrives.
STANDBY_CPU_SECONDS = 30
# How long a job waits for its standby to finish preloading before the sandbox counts as broken.
STANDBY_WAIT_SECONDS = 120.0


@dataclass(frozen=True)
class SandboxSpec:
    """What is fixed when a sandbox starts; the job's CPU, wall-clock and output caps are set at its start."""

    limits: Limits
    allow_processes: bool = False
    preload: tuple[str, ...] = ()

    def fits(self, limits: Limits) -> bool:
        """True when a job with these limits can run in a sandbox started with this spec."""
        mine = self.limits
        same_shape = replace(
            limits, cpu_seconds=mine.cpu_seconds, wall_seconds=mine.wall_seconds, max_output_bytes=mine.max_output_bytes
        )
        return same_shape == mine and limits.cpu_seconds <= mine.cpu_seconds


@dataclass(frozen=True)
class SandboxRun:
    """The outcome, and whether the job reached the harness (False: the sandbox was gone before it)."""

    outcome: HarnessOutcome
    accepted: bool


class Sandbox:
    """A started sandbox waiting for its one job. Made by start_sandbox; always discard() it."""

    def __init__(
        self, *, spec: SandboxSpec, proc: subprocess.Popen[bytes], workspace: Workspace, fds: dict[str, int],
        stack: contextlib.ExitStack, judge: JudgeProcess,
    ) -> None:  # fmt: skip
        self.spec = spec
        self._judge = judge
        self.started_at = time.monotonic()
        self._proc = proc
        self._workspace = workspace
        self._fds = fds
        self._stack = stack
        self._used = False
        self._ready = False

    @property
    def host_pid(self) -> int:
        """Pid of the outermost sandbox process (bubblewrap) on the host."""
        return self._proc.pid

    @property
    def judge_host_pid(self) -> int:
        """Pid of the judge process waiting beside the sandbox (outside it) on the host."""
        return self._judge.host_pid

    def alive(self) -> bool:
        """The sandbox's process tree is still there (it may still be preloading)."""
        return self._proc.poll() is None

    def wait_ready(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds until the standby has preloaded its modules; True when it has."""
        fd = self._fds.get("ready")
        if fd is None:
            return self._ready
        readable, _, _ = select.select([fd], [], [], max(0.0, timeout))
        if readable:
            self._ready = os.read(fd, 1) == b"1"
            self._close_fd("ready")
        return self._ready

    def run(self, job: HarnessJob) -> SandboxRun:
        """Deliver the job, run it to its end or its limits and classify the outcome. Once only."""
        if self._used:
            raise RuntimeError("a sandbox runs exactly one job")
        self._used = True
        limits = job.limits
        self._workspace.fill(candidate_files=job.candidate_files, job_input=job.input, harness_dir=job.harness_dir)
        judge: JudgeProcess | None = None
        streams = progress_streams(job.on_progress, self._fds["progress"])
        if has_judge(job.harness_dir):
            # The judge runs out here, started with the sandbox (torch preloaded when the sandbox is a
            # warm standby); the candidate's process inside only answers it (judge_process.py).
            judge = self._judge
            judge.begin(job)
            if judge.progress_fd is not None:
                streams = {**streams, **progress_streams(job.on_progress, judge.progress_fd)}
            judge.watch(self._end_after_judge)
        else:
            self._judge.retire()
        started = time.monotonic()
        message = json.dumps({"cpu_seconds": limits.cpu_seconds, "cpu_grace": CPU_HARD_GRACE_SECONDS}).encode()
        with contextlib.suppress(BrokenPipeError):  # the standby is gone: the report says so
            os.write(self._fds["go"], message)
        self._close_fd("go")  # EOF ends the message
        # The wall clock starts when the standby takes the job: a standby still importing torch
        # when the job comes makes the job wait, but does not spend its time.
        run = supervise(
            self._proc, started=started, wall_seconds=limits.wall_seconds, max_output_bytes=limits.max_output_bytes,
            extra_read_fds=(self._fds["status"], self._fds["ack"]), max_extra_bytes=limits.max_result_bytes + 4096,
            stream_fds=streams, clock_fd=self._fds["ack"], clock_wait_seconds=STANDBY_WAIT_SECONDS,
        )  # fmt: skip
        status, ack = run.extra.get(self._fds["status"], b""), run.extra.get(self._fds["ack"], b"")
        if not status.startswith(_STARTED):
            logger.error("sandbox failed to start: %s", run.stderr[-2000:].decode(errors="replace"))
        facts = _facts(run, status, ack)
        if judge is not None:
            # The only result that counts is the judge's; whatever the sandbox left in its own out
            # directory is ignored.
            judged = judge.finish()
            # A judge that wrote its result may have ended the sandbox itself (the import limit, an agent
            # that ignored "bye"): that kill is no crash of the candidate's.
            lost = facts.launcher_lost and judged.result is None
            facts = replace(facts, result=judged, judge_failed=judge.failed, launcher_lost=lost)
        return SandboxRun(build_outcome(facts, limits=limits), accepted=_accepted(ack) is not None)

    def _end_after_judge(self) -> None:
        """The judge is done and the agent did not exit on its own: end the sandbox."""
        if self._proc.poll() is None:
            kill_group(self._proc.pid)

    def discard(self) -> None:
        """Kill whatever still runs, free the uid slot and delete the workspace (idempotent)."""
        self._stack.close()

    def _close_fd(self, name: str) -> None:
        fd = self._fds.pop(name, None)
        if fd is not None:
            os.close(fd)

    def _stop(self) -> None:
        kill_group(self._proc.pid)
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()
        for name in list(self._fds):
            self._close_fd(name)


def start_sandbox(
    spec: SandboxSpec, *, python: str | None = None, bwrap: str, workspace_parent: Path | None = None
) -> Sandbox:
    """Start a sandbox that waits for one job; raises OSError or NoFreeSlotError when it cannot start."""
    python = python or sys.executable
    stack = contextlib.ExitStack()
    try:
        slot = stack.enter_context(_identity())
        # Inside the slot's directory by default: a worker killed mid-run leaves nothing behind
        # for long, because the next holder of the slot wipes it.
        parent = workspace_parent or (slot.stage_dir if slot is not None else None)
        workspace = create_workspace(parent=parent)
        stack.callback(workspace.remove)
        fds: dict[str, int] = {}
        stack.callback(_close_all, fds)
        channel = AgentChannel.open()
        stack.callback(channel.close_all)
        proc = _launch(spec, python=python, bwrap=bwrap, workspace=workspace, slot=slot, fds=fds, channel=channel)
        judge = standby_judge(channel, python=python, nice=get_settings().sandbox_nice, preload=spec.preload,
                              max_result_bytes=spec.limits.max_result_bytes)
        stack.callback(judge.retire)
        sandbox = Sandbox(spec=spec, proc=proc, workspace=workspace, fds=fds, stack=stack, judge=judge)
        stack.callback(sandbox._stop)
    except BaseException:
        stack.close()
        raise
    return sandbox


@contextlib.contextmanager
def _identity() -> Iterator[Slot | None]:
    """As root: a dedicated uid slot. Otherwise the service's own uid (None: no switch)."""
    if os.getuid() != 0:
        yield None
        return
    with sandbox_uid_slot() as slot:
        yield slot


def _mounts(python: str, workspace: Workspace, uid: int) -> list[cmd.Mount]:
    etc = workspace.root / "etc"
    etc.mkdir(mode=0o755)
    (etc / "passwd").write_text(f"sandbox:x:{uid}:{uid}:sandbox:/tmp:/usr/sbin/nologin\n")
    (etc / "group").write_text(f"sandbox:x:{uid}:\n")
    for name in ("passwd", "group"):
        os.chmod(etc / name, 0o644)
    return [
        *cmd.python_mounts(python),
        cmd.Mount(str(workspace.candidate_dir), cmd.CANDIDATE_DIR),
        cmd.Mount(str(workspace.harness_dir), cmd.HARNESS_DIR),
        cmd.Mount(str(workspace.input_dir), cmd.INPUT_DIR),
        *(cmd.Mount(str(_HERE / name), f"{cmd.LAUNCHER_DIR}/{name}") for name in _IN_SANDBOX_FILES),
        cmd.Mount(str(etc / "passwd"), "/etc/passwd"),
        cmd.Mount(str(etc / "group"), "/etc/group"),
    ]


def _launch(
    spec: SandboxSpec, *, python: str, bwrap: str, workspace: Workspace, slot: Slot | None, fds: dict[str, int],
    channel: AgentChannel,
) -> subprocess.Popen[bytes]:
    """Start enter.py -> bwrap; fds gets our ends of the status, go and ack pipes. The agent's ends of
    the judge channel go into the sandbox (and are closed here once the child has them)."""
    uid = slot.uid if slot is not None else os.getuid()
    mounts = _mounts(python, workspace, uid)
    staged: list[list[str]] = []
    if slot is not None:
        mounts, staged = _stage(mounts, slot.stage_dir)
    child_ends: list[int] = []  # closed here once the child has its copies
    try:
        fds["status"], status_w = os.pipe()
        go_r, fds["go"] = os.pipe()
        fds["ack"], ack_w = os.pipe()
        fds["ready"], ready_w = os.pipe()
        # The progress channel exists from the start; the job's callback reads it once the job runs.
        fds["progress"], progress_w = os.pipe()
        child_ends += [status_w, go_r, ack_w, ready_w, progress_w]
        sandbox_argv = cmd.build_bwrap_argv(
            bwrap=bwrap, python=python, mounts=mounts, limits=spec.limits, sandbox_uid=uid, status_fd=status_w,
            go_fd=go_r, ack_fd=ack_w, ready_fd=ready_w, preload=spec.preload, allow_processes=spec.allow_processes,
            progress_fd=progress_w, agent_fds=channel.agent_fds,
        )  # fmt: skip
        # Arguments and the seccomp program go through pipes: the sandbox can read pid 1's
        # cmdline, and it should not learn host paths from it.
        split = sandbox_argv.index("--")
        options, command = sandbox_argv[1:split], sandbox_argv[split:]
        args_fd = _pipe_with(b"".join(arg.encode() + b"\0" for arg in options))
        child_ends.append(args_fd)
        argv = [bwrap, "--args", str(args_fd), *command]
        program = denylist_program()
        if program is None:
            logger.warning("no seccomp filter on this architecture: syscall denylist and no-fork are off")
        else:
            seccomp_fd = _pipe_with(program)
            child_ends.append(seccomp_fd)
            argv[1:1] = ["--seccomp", str(seccomp_fd)]
        table = rlimit_table(spec.limits, extra_cpu_seconds=STANDBY_CPU_SECONDS)
        # A separate helper process sets limits (and identity) and then execs bwrap, so no
        # Python code runs between fork and exec in this possibly multi-threaded server.
        if slot is not None:
            config = {"uid": slot.uid, "gid": slot.uid, "rlimits": table, "binds": staged, "argv": argv}
        else:
            config = {"uid": None, "gid": None, "rlimits": with_nproc_headroom(table), "binds": [], "argv": argv}
        config["nice"] = get_settings().sandbox_nice  # bwrap and everything in the sandbox inherit it
        enter_argv = [sys.executable, "-I", "-S", "-B", _ENTER, json.dumps(config)]
        pass_fds = [*child_ends, *channel.agent_fds]
        ends, child_ends = child_ends, []
        return start_child(
            enter_argv, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, cwd=str(workspace.root),
            pass_fds=pass_fds, close_after_start=ends,
        )  # fmt: skip
    finally:
        for fd in child_ends:
            os.close(fd)
        channel.close_agent_ends()  # the child has its copies (or never started)


def _close_all(fds: dict[str, int]) -> None:
    for fd in fds.values():
        os.close(fd)
    fds.clear()


def _pipe_with(data: bytes) -> int:
    """Read end of a pipe already holding data (small: must fit the pipe buffer)."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
    finally:
        os.close(write_end)
    return read_end


def _stage(mounts: list[cmd.Mount], stage_dir: Path) -> tuple[list[cmd.Mount], list[list[str]]]:
    """Mount points the sandbox uid can reach, for sources it may not (e.g. Python under /root)."""
    staged_mounts, binds = [], []
    for index, mount in enumerate(mounts):
        point = stage_dir / f"m{index}"
        if os.path.isdir(mount.host):
            point.mkdir(mode=0o755)
        else:
            point.touch(mode=0o644)
        binds.append([mount.host, str(point)])
        staged_mounts.append(cmd.Mount(str(point), mount.sandbox))
    return staged_mounts, binds


def _accepted(ack: bytes) -> float | None:
    """The standby's CPU before the job when it acknowledged the job, else None."""
    line = ack.partition(b"\n")[0]
    with contextlib.suppress(ValueError):
        loaded = json.loads(line)
        if isinstance(loaded, dict) and loaded.get("accepted") is True:
            warm = loaded.get("warm_cpu")
            return float(warm) if isinstance(warm, int | float) else 0.0
    return None


def _facts(run: SupervisedRun, status: bytes, ack: bytes) -> RunFacts:
    """Combine the supervisor's view with the reports from inside the sandbox."""
    started = status.startswith(_STARTED)
    warm_cpu = _accepted(ack)
    header: dict = {}
    payload = b""
    if started:
        line, _, payload = status[len(_STARTED) :].partition(b"\n")
        with contextlib.suppress(ValueError):
            loaded = json.loads(line) if line else {}
            header = loaded if isinstance(loaded, dict) else {}
    rc = header.get("rc")
    result: ResultRead | None = None
    if "read" in header:
        reason = str(header["read"])
        result = result_from_read(payload if reason == "ok" else None, reason)
    cpu = header.get("cpu")
    accepted = warm_cpu is not None
    return RunFacts(
        wall_seconds=run.wall_seconds,
        timed_out=run.timed_out,
        output_exceeded=run.output_exceeded,
        exit_code=rc if isinstance(rc, int) and rc >= 0 else None,
        exit_signal=-rc if isinstance(rc, int) and rc < 0 else None,
        stdout=run.stdout,
        stderr=run.stderr if started else b"",
        result=result,
        # Nothing of the job ran when the standby never took it: not the candidate's doing.
        sandbox_failed=not accepted,
        launcher_lost=accepted and not header and not run.timed_out and not run.output_exceeded,
        cpu_seconds=max(0.0, float(cpu) - (warm_cpu or 0.0)) if isinstance(cpu, int | float) else None,
    )
