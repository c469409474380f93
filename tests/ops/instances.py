"""Private redis-server and PostgreSQL instances on their own ports, to stop and restart in fault tests.

Never the machine's shared services: each instance lives in a temporary directory and a free port,
and is stopped and removed at the end. PostgreSQL's initdb refuses to run as root, so as root the
cluster belongs to the `postgres` system user (run through runuser).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from glob import glob
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _wait(check: object, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


def redis_server_binary() -> str | None:
    return shutil.which("redis-server")


def postgres_bin_dir() -> Path | None:
    found = sorted(glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


@dataclass
class RedisInstance:
    port: int
    directory: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = redis_server_binary()
        assert binary, "redis-server is not installed"
        log = (self.directory / "redis.log").open("ab")
        # No persistence: a restart loses every message, the harshest case for the app.
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.directory)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        _wait(lambda: _port_open(self.port), f"redis on port {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None
        _wait(lambda: not _port_open(self.port), f"redis on port {self.port} to stop")


@contextmanager
def own_redis() -> Iterator[RedisInstance]:
    directory = Path(tempfile.mkdtemp(prefix="dojo-redis-"))
    instance = RedisInstance(port=free_port(), directory=directory)
    instance.start()
    try:
        yield instance
    finally:
        instance.stop()
        shutil.rmtree(directory, ignore_errors=True)


@dataclass
class PostgresInstance:
    port: int
    directory: Path
    bin_dir: Path
    as_user: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.directory / "data"), "-U", "postgres",
                  "--auth=trust", "-E", "UTF8", "--no-sync")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.directory / "data"), "-l",
                  str(self.directory / "postgres.log"), "-o", options, "-w", "-t", "60", "start")

    def stop(self) -> None:
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.directory / "data"), "-m", "fast", "-w", "stop")


@contextmanager
def own_postgres() -> Iterator[PostgresInstance]:
    bin_dir = postgres_bin_dir()
    assert bin_dir is not None, "PostgreSQL server binaries are not installed"
    directory = Path(tempfile.mkdtemp(prefix="dojo-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    directory.chmod(0o755)
    instance = PostgresInstance(port=free_port(), directory=directory, bin_dir=bin_dir, as_user=as_user)
    instance.init()
    instance.start()
    try:
        yield instance
    finally:
        with suppress(subprocess.CalledProcessError):
            instance.stop()
        shutil.rmtree(directory, ignore_errors=True)
