"""Real `dojo` subprocesses for fault tests: start in their own process group, kill the whole group."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from app.core.paths import ROOT_DIR

T = TypeVar("T")


def dojo_env(**overrides: str) -> dict[str, str]:
    """The test environment for a child `dojo` process, one thread per maths library."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
    env.update(overrides)
    return env


def dojo_command() -> list[str]:
    """The installed `dojo` console script, or the same entry point through python -m."""
    script = Path(sys.executable).parent / "dojo"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "app.cli"]


def start_dojo(args: list[str], *, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`dojo ARGS` in a new session (its pid is the process-group id), output appended to log."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [*dojo_command(), *args], cwd=ROOT_DIR, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def kill_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL, timeout: float = 20) -> None:
    """Signal the process and everything in its group, then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Callable[[], T | None], *, timeout: float, every: float = 0.25, what: str = "condition") -> T:
    """Poll until check() returns something truthy; fail with `what` after the timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def parent_pid(pid: int) -> int | None:
    """The parent of a live process (from /proc), or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])
