"""Start a child in its own session, drain its output under a cap, and kill its tree on limits."""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Protocol

log = logging.getLogger(__name__)

# After the main process exits, give leftover writers this long before the group is killed.
_DRAIN_GRACE_SECONDS = 0.2


@dataclass
class SupervisedRun:
    """Raw facts about one supervised process run."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    wall_seconds: float
    timed_out: bool = False
    output_exceeded: bool = False
    extra: dict[int, bytes] = field(default_factory=dict)


def _deliver(callback: Callable[[bytes], None], chunk: bytes) -> None:
    """Hand a streamed chunk on; a failing callback must never stop the supervision."""
    try:
        callback(chunk)
    except Exception:
        log.exception("a stream callback failed; the run goes on")


def kill_group(pgid: int) -> None:
    """SIGKILL a whole process group; a group that is already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def start_child(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: str,
    preexec_fn: Callable[[], None] | None = None,
    pass_fds: Sequence[int] = (),
    close_after_start: Sequence[int] = (),
) -> subprocess.Popen[bytes]:
    """Start argv in a session of its own with piped output; supervise() it later (or kill_group it)."""
    try:
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=preexec_fn,
            pass_fds=tuple(pass_fds),
            close_fds=True,
        )
    finally:
        for fd in close_after_start:
            os.close(fd)  # the child holds its copy; ours would keep the pipe from reaching EOF


class Child(Protocol):
    """What supervise() uses of a child: a subprocess.Popen, or a process forked by the judge fork
    server for the development runner (judge_server.ForkedProcess), both leading a session of their own."""

    pid: int
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


def supervise(
    proc: Child,
    *,
    started: float,
    wall_seconds: float,
    max_output_bytes: int,
    extra_read_fds: Sequence[int] = (),
    max_extra_bytes: int = 0,
    stream_fds: Mapping[int, Callable[[bytes], None]] | None = None,
    clock_fd: int | None = None,
    clock_wait_seconds: float = 0.0,
) -> SupervisedRun:
    """Drain a started child's output until it exits or hits a limit; the wall clock runs from `started`.

    With clock_fd (one of extra_read_fds) the wall clock starts instead when its first bytes arrive
    (a standby sandbox saying its job has begun), which may take up to clock_wait_seconds.
    Whatever the outcome, the child's whole process group is killed before this returns.
    """
    streams = dict(stream_fds or {})
    pgid = proc.pid  # start_new_session makes the child a session and group leader
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    buffers: dict[int, bytearray] = {}
    caps: dict[int, int] = {}
    selector = selectors.DefaultSelector()
    for stream in (proc.stdout, proc.stderr):
        fd = stream.fileno()
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
        buffers[fd], caps[fd] = bytearray(), max_output_bytes
    for fd in extra_read_fds:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
        buffers[fd], caps[fd] = bytearray(), max_extra_bytes
    for fd in streams:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    timed_out = output_exceeded = False
    exited_at: float | None = None
    clock_started = clock_fd is None
    try:
        while True:
            now = time.monotonic()
            if now - started > (wall_seconds if clock_started else clock_wait_seconds):
                timed_out = True
                break
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and (not selector.get_map() or now - exited_at > _DRAIN_GRACE_SECONDS):
                break
            if not selector.get_map():
                # Streams closed but the process lives on: keep waiting for it.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=0.05)
                continue
            for key, _ in selector.select(timeout=0.05):
                fd = int(key.fd)
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    selector.unregister(fd)
                    continue
                if fd == clock_fd and not clock_started:
                    clock_started, started = True, time.monotonic()
                if fd in streams:
                    _deliver(streams[fd], chunk)
                    continue
                room = caps[fd] - len(buffers[fd])
                buffers[fd] += chunk[: max(room, 0)]
                if len(chunk) > room:
                    if fd in (out_fd, err_fd):
                        output_exceeded = True
                    else:
                        selector.unregister(fd)
            if output_exceeded:
                break
        _drain_buffered(selector, buffers, caps)
    finally:
        selector.close()
        kill_group(pgid)
        try:
            returncode = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            returncode = proc.wait()
        kill_group(pgid)  # anything forked in the meantime
        proc.stdout.close()
        proc.stderr.close()
    return SupervisedRun(
        returncode=returncode,
        stdout=bytes(buffers.pop(out_fd)),
        stderr=bytes(buffers.pop(err_fd)),
        wall_seconds=time.monotonic() - started,
        timed_out=timed_out,
        output_exceeded=output_exceeded,
        extra={fd: bytes(buf) for fd, buf in buffers.items()},
    )


def _drain_buffered(selector: selectors.BaseSelector, buffers: dict[int, bytearray], caps: dict[int, int]) -> None:
    """Keep what already sits in the pipes when the loop stops early (a report written just in time)."""
    for key in list(selector.get_map().values()):
        fd = int(key.fd)
        while fd in buffers and len(buffers[fd]) < caps[fd]:
            try:
                chunk = os.read(fd, min(65536, caps[fd] - len(buffers[fd])))
            except (BlockingIOError, OSError):
                break
            if not chunk:
                break
            buffers[fd] += chunk
