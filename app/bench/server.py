"""A real `dojo serve` (and `dojo worker`s) in a throw-away data directory, for benchmarks."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from app.bench.http import Client
from app.core.paths import ROOT_DIR

HOST = "127.0.0.1"
PASSWORD = "bench-password-" + "x" * 8


def dojo_command() -> list[str]:
    """The `dojo` entry point of this Python environment."""
    script = Path(sys.executable).parent / "dojo"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "app.cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def bench_env(data_dir: Path, **overrides: str) -> dict[str, str]:
    """The environment of the benchmarked processes: a data directory of their own, no throttling.

    Not a settings read: the benchmark starts servers and workers as child processes, and their settings
    are this environment (this process's own, less its test and dojo variables, plus the overrides);
    the sandbox host's variables pass through so children share its uid range and bubblewrap.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DOJO_", "WARM_"))}
    env.pop("BROKER_URL", None)
    env.pop("DATABASE_URL", None)
    env.update(
        DOJO_DATA_DIR=str(data_dir), SECRET_KEY=secrets.token_urlsafe(48), LOG_FORMAT="text",
        # The benchmark submits faster than a person would; the limits would only measure themselves.
        ATTEMPTS_PER_USER_PER_MINUTE="100000", LOGIN_ATTEMPTS_PER_IP="100000",
        OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
    )  # fmt: skip
    for name in ("DOJO_SANDBOX_UID_BASE", "DOJO_SANDBOX_STATE_DIR", "DOJO_BWRAP"):
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(overrides)
    return env


def create_users(emails: list[str], *, env: dict[str, str]) -> list[str]:
    """Candidates with the bench password, in one process (a candidate grades one submission at a
    time, so a batch needs as many candidates as submissions)."""
    code = (
        "import sys\n"
        "from app.core.db import get_engine, new_session\n"
        "from app.core.migrate import upgrade_to_head\n"
        "from app.users.service import create_user\n"
        "upgrade_to_head(get_engine())\n"
        "with new_session() as session:\n"
        "    for email in sys.argv[2:]:\n"
        "        create_user(session=session, email=email, password=sys.argv[1], role='candidate')\n"
        "    session.commit()\n"
    )
    subprocess.run([sys.executable, "-c", code, PASSWORD, *emails], cwd=ROOT_DIR, env=env, check=True,
                   capture_output=True, timeout=600)  # fmt: skip
    return emails


class DojoProcess:
    """A `dojo ARGS` process in its own session, output to a log file; stop() ends the whole group."""

    def __init__(self, args: list[str], *, env: dict[str, str], log: Path) -> None:
        self.args, self.env, self.log = args, env, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [*dojo_command(), *self.args], cwd=ROOT_DIR, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_ready(self, timeout: float = 180) -> None:
        """Wait for a `dojo worker` to log that it is ready."""
        deadline = time.monotonic() + timeout
        while "ready." not in self.log_text():
            if time.monotonic() > deadline:
                raise RuntimeError(f"worker not ready:\n{self.log_text()[-2000:]}")
            time.sleep(0.2)


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages: other work on the machine adds time."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class BenchServer(DojoProcess):
    """`dojo serve` on a free port."""

    def __init__(self, *, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        super().__init__(["serve", "--host", HOST, "--port", str(self.port)], env=env, log=log)

    def start_and_wait(self, *, timeout: float = 1800.0) -> float:
        """Start the server; seconds until /healthz answers 200 (what a user waits for after a start)."""
        started = time.monotonic()
        self.start()
        while time.monotonic() - started < timeout:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"dojo serve exited ({self.proc.returncode}):\n{self.log_text()[-3000:]}")
            with contextlib.suppress(OSError, Exception):
                client = Client(HOST, self.port, timeout=2)
                try:
                    if client.get("/healthz", expect=(200, 503)).status == 200:
                        return time.monotonic() - started
                finally:
                    client.close()
            time.sleep(0.1)
        raise RuntimeError(f"dojo serve did not answer within {timeout:.0f} s")

    def client(self, *, email: str | None = None) -> Client:
        """A client with a bearer token for `email` (or anonymous)."""
        client = Client(HOST, self.port)
        if email is not None:
            client.sign_in_api(email, PASSWORD)
        return client


def wait_for_validations(database: Path, *, timeout: float = 3600.0) -> float:
    """Seconds until no validation job of the server's SQLite database is unfinished (the background
    mutation matrix of a fresh install)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        with contextlib.closing(sqlite3.connect(database, timeout=30)) as db:
            (unfinished,) = db.execute("SELECT count(*) FROM scenario_jobs WHERE status IN "
                                       "('queued', 'running', 'closing')").fetchone()
        if not unfinished:
            return time.monotonic() - started
        time.sleep(1.0)
    raise RuntimeError(f"validations still running after {timeout:.0f} s")
