"""Private PostgreSQL and Redis instances for the scale-out benchmark (never the machine's shared ones)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from app.bench.server import HOST, free_port

POSTGRES_USER = "postgres"  # the server refuses to run as root; the Debian package's account does


def _as_postgres(argv: list[str]) -> list[str]:
    return argv if os.getuid() != 0 else ["runuser", "-u", POSTGRES_USER, "--", *argv]


@contextlib.contextmanager
def private_postgres() -> Iterator[str]:
    """A throw-away PostgreSQL cluster on a free port; yields its SQLAlchemy URL (database `dojo`)."""
    root = Path(tempfile.mkdtemp(prefix="dojo-bench-pg-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    if os.getuid() == 0:
        shutil.chown(root, POSTGRES_USER)
        shutil.chown(sockets, POSTGRES_USER)
    port = free_port()
    try:
        subprocess.run(_as_postgres(["initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]),
                       check=True, capture_output=True, timeout=300)  # fmt: skip
        options = f"-p {port} -k {sockets} -c listen_addresses={HOST} -c fsync=off"
        subprocess.run(_as_postgres(["pg_ctl", "-D", str(data), "-o", options, "-l", str(root / "pg.log"), "-w",
                                     "start"]), check=True, capture_output=True, timeout=120)  # fmt: skip
        subprocess.run(_as_postgres(["createdb", "-h", HOST, "-p", str(port), "-U", "postgres", "dojo"]),
                       check=True, capture_output=True, timeout=60)  # fmt: skip
        yield f"postgresql+psycopg://postgres@{HOST}:{port}/dojo"
    finally:
        subprocess.run(_as_postgres(["pg_ctl", "-D", str(data), "-m", "immediate", "stop"]), capture_output=True,
                       timeout=60)  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def private_redis() -> Iterator[str]:
    """A throw-away Redis without persistence on a free port; yields its URL."""
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        import redis

        client = redis.Redis(host=HOST, port=port)
        deadline = time.monotonic() + 30
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()
        yield f"redis://{HOST}:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
