"""Production runner: the harness under bubblewrap, as a dedicated uid, with rlimits and a watchdog."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from app.sandbox import bwrap_command as cmd
from app.sandbox.bwrap_probe import bwrap_path
from app.sandbox.job import HarnessJob, HarnessOutcome, Limits
from app.sandbox.outcome import RunFacts, build_outcome
from app.sandbox.progress import progress_streams
from app.sandbox.result_file import ResultRead, result_from_read
from app.sandbox.rlimits import rlimit_table, with_nproc_headroom
from app.sandbox.seccomp import denylist_program
from app.sandbox.slots import Slot, sandbox_uid_slot
from app.sandbox.supervise import SupervisedRun, run_supervised
from app.sandbox.workspace import Workspace, create_workspace

logger = logging.getLogger(__name__)
_HERE = Path(__file__).resolve().parent
_ENTER = str(_HERE / "enter.py")


class BwrapRunner:
    """Runs each job in a fresh bubblewrap sandbox; nothing survives the run."""

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
        """Run one job and classify the outcome; the workspace is removed afterwards."""
        with self._identity() as slot:
            # Inside the slot's directory by default: a worker killed mid-run leaves nothing behind
            # for long, because the next holder of the slot wipes it.
            parent = self.workspace_parent or (slot.stage_dir if slot is not None else None)
            workspace = create_workspace(candidate_files=job.candidate_files, job_input=job.input, parent=parent)
            try:
                run, status = self._run_in_sandbox(job, workspace, slot)
            finally:
                workspace.remove()
        return build_outcome(_facts(run, status, job.limits), limits=job.limits)

    @contextlib.contextmanager
    def _identity(self) -> Iterator[Slot | None]:
        """As root: a dedicated uid slot. Otherwise the service's own uid (None: no switch)."""
        if os.getuid() != 0:
            yield None
            return
        with sandbox_uid_slot() as slot:
            yield slot

    def _mounts(self, job: HarnessJob, workspace: Workspace, uid: int) -> list[cmd.Mount]:
        etc = workspace.root / "etc"
        etc.mkdir(mode=0o755)
        (etc / "passwd").write_text(f"sandbox:x:{uid}:{uid}:sandbox:/tmp:/usr/sbin/nologin\n")
        (etc / "group").write_text(f"sandbox:x:{uid}:\n")
        for name in ("passwd", "group"):
            os.chmod(etc / name, 0o644)
        return [
            *cmd.python_mounts(self.python),
            cmd.Mount(str(workspace.candidate_dir), cmd.CANDIDATE_DIR),
            cmd.Mount(os.path.realpath(job.harness_dir), cmd.HARNESS_DIR),
            cmd.Mount(str(workspace.input_file), cmd.INPUT_FILE),
            cmd.Mount(str(_HERE / "launcher.py"), f"{cmd.LAUNCHER_DIR}/launcher.py"),
            cmd.Mount(str(_HERE / "result_file.py"), f"{cmd.LAUNCHER_DIR}/result_file.py"),
            cmd.Mount(str(_HERE / "seccomp.py"), f"{cmd.LAUNCHER_DIR}/seccomp.py"),
            cmd.Mount(str(etc / "passwd"), "/etc/passwd"),
            cmd.Mount(str(etc / "group"), "/etc/group"),
        ]

    def _run_in_sandbox(self, job: HarnessJob, workspace: Workspace, slot: Slot | None) -> tuple[SupervisedRun, bytes]:
        limits = job.limits
        uid = slot.uid if slot is not None else os.getuid()
        mounts = self._mounts(job, workspace, uid)
        staged: list[list[str]] = []
        if slot is not None:
            mounts, staged = _stage(mounts, slot.stage_dir)
        read_fd, write_fd = os.pipe()
        progress_read, progress_write = os.pipe()
        to_close = [read_fd, write_fd, progress_read, progress_write]
        try:
            sandbox_argv = cmd.build_bwrap_argv(
                bwrap=self.bwrap, python=self.python, mounts=mounts, limits=limits,
                sandbox_uid=uid, status_fd=write_fd, allow_processes=self.allow_processes,
                progress_fd=progress_write,
            )  # fmt: skip
            # Arguments and the seccomp program go through pipes: the sandbox can read pid 1's
            # cmdline, and it should not learn host paths from it.
            split = sandbox_argv.index("--")
            options, command = sandbox_argv[1:split], sandbox_argv[split:]
            args_fd = _pipe_with(b"".join(arg.encode() + b"\0" for arg in options))
            to_close.append(args_fd)
            argv = [self.bwrap, "--args", str(args_fd), *command]
            pass_fds = [write_fd, args_fd, progress_write]
            program = denylist_program()
            if program is None:
                logger.warning("no seccomp filter on this architecture: syscall denylist and no-fork are off")
            else:
                seccomp_fd = _pipe_with(program)
                to_close.append(seccomp_fd)
                pass_fds.append(seccomp_fd)
                argv[1:1] = ["--seccomp", str(seccomp_fd)]
            table = rlimit_table(limits)
            # A separate helper process sets limits (and identity) and then execs bwrap, so no
            # Python code runs between fork and exec in this possibly multi-threaded server.
            if slot is not None:
                config = {"uid": slot.uid, "gid": slot.uid, "rlimits": table, "binds": staged, "argv": argv}
            else:
                config = {"uid": None, "gid": None, "rlimits": with_nproc_headroom(table), "binds": [], "argv": argv}
            argv = [sys.executable, "-I", "-S", "-B", _ENTER, json.dumps(config)]
            to_close.remove(write_fd)  # run_supervised closes these once the child has them
            to_close.remove(progress_write)
            run = run_supervised(
                argv,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                cwd=str(workspace.root),
                wall_seconds=limits.wall_seconds,
                max_output_bytes=limits.max_output_bytes,
                pass_fds=pass_fds,
                close_after_start=(write_fd, progress_write),
                extra_read_fds=(read_fd,),
                max_extra_bytes=limits.max_result_bytes + 4096,
                stream_fds=progress_streams(job, progress_read),
            )
        finally:
            for fd in to_close:
                os.close(fd)
        status = run.extra.get(read_fd, b"")
        if not status.startswith(b'{"started": true}\n'):
            logger.error("sandbox failed to start: %s", run.stderr[-2000:].decode(errors="replace"))
        return run, status


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


def _facts(run: SupervisedRun, status: bytes, limits: Limits) -> RunFacts:
    """Combine the supervisor's view with the launcher's report from inside the sandbox."""
    started = status.startswith(b'{"started": true}\n')
    header: dict = {}
    payload = b""
    if started:
        rest = status[len(b'{"started": true}\n') :]
        line, _, payload = rest.partition(b"\n")
        with contextlib.suppress(ValueError):
            loaded = json.loads(line) if line else {}
            header = loaded if isinstance(loaded, dict) else {}
    rc = header.get("rc")
    result: ResultRead | None = None
    if "read" in header:
        reason = str(header["read"])
        result = result_from_read(payload if reason == "ok" else None, reason)
    cpu = header.get("cpu")
    return RunFacts(
        wall_seconds=run.wall_seconds,
        timed_out=run.timed_out,
        output_exceeded=run.output_exceeded,
        exit_code=rc if isinstance(rc, int) and rc >= 0 else None,
        exit_signal=-rc if isinstance(rc, int) and rc < 0 else None,
        stdout=run.stdout,
        stderr=run.stderr if started else b"",
        result=result,
        sandbox_failed=not started and not run.timed_out,
        launcher_lost=started and not header and not run.timed_out and not run.output_exceeded,
        cpu_seconds=float(cpu) if isinstance(cpu, int | float) else None,
    )
