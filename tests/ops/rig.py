"""A deployment in miniature for fault and soak runs: `dojo serve` and `dojo worker` processes on a
database and broker of the caller's choosing, the tiny scenario published, candidates with tokens.

Shared by tests/ops/test_outages.py and scripts/soak.py.
"""

from __future__ import annotations

import json
import signal
import subprocess
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dispatch.processes import dojo_command, dojo_env, kill_group, start_dojo, wait_for
from dispatch.tiny_scenario import SLUG, publish_tiny, warm_reference
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.auth.tokens import issue_token
from app.core.db import make_engine
from app.core.paths import ROOT_DIR
from app.users.service import create_user

FINISHED = ("passed", "failed", "error")


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]


@dataclass
class Rig:
    data: Path
    env: dict[str, str]
    engine: Engine
    port: int
    tokens: list[str]
    solution: dict[str, str]
    web: subprocess.Popen[bytes] | None = None
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_web(self) -> None:
        self.web = start_dojo(["serve", "--port", str(self.port)], env=self.env, log=self.data / "web.log")
        wait_for(lambda: self.request("GET", "/healthz").status == 200, timeout=90, what="dojo serve to answer")

    def start_worker(self, index: int) -> subprocess.Popen[bytes]:
        log = self.data / f"worker-{index}.log"
        start = log.stat().st_size if log.exists() else 0
        worker = start_dojo(["worker", "--concurrency", "1"], env=self.env, log=log)
        wait_for(lambda: log.exists() and "ready." in log.read_text(errors="replace")[start:], timeout=90,
                 what=f"worker {index} to be ready")
        while len(self.workers) <= index:
            self.workers.append(worker)
        self.workers[index] = worker
        return worker

    def stop_worker(self, index: int, sig: int = signal.SIGTERM) -> None:
        kill_group(self.workers[index], sig=sig, timeout=60)

    def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                headers: dict[str, str] | None = None) -> Reply:
        data = json.dumps(body).encode() if body is not None else None
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw, status, got = response.read(), response.status, dict(response.headers)
        except urllib.error.HTTPError as exc:
            raw, status, got = exc.read(), exc.code, dict(exc.headers)
        except OSError as exc:
            return Reply(status=0, body=str(exc), headers={})
        try:
            parsed: Any = json.loads(raw)
        except ValueError:
            parsed = raw.decode(errors="replace")
        return Reply(status=status, body=parsed, headers=got)

    def submit(self, n: int, kind: str = "run") -> Reply:
        """Candidate n submits the tiny scenario's solution, marked so each attempt is distinct."""
        files = {"model.py": f"# attempt {uuid.uuid4().hex}\n" + self.solution["model.py"]}
        return self.request("POST", "/api/attempts", {"scenario": SLUG, "kind": kind, "files": files},
                            token=self.tokens[n % len(self.tokens)])

    def attempts(self, ids: list[int]) -> list[Attempt]:
        with Session(self.engine) as session:
            return list(session.scalars(select(Attempt).where(Attempt.id.in_(ids)).order_by(Attempt.id)).all())

    def counts(self) -> dict[str, int]:
        with Session(self.engine) as session:
            return dict(session.execute(select(Attempt.status, func.count()).group_by(Attempt.status)).all())

    def wait_finished(self, ids: list[int], timeout: float) -> list[Attempt]:
        return wait_for(lambda: (rows := self.attempts(ids)) and all(r.status in FINISHED for r in rows) and rows,
                        timeout=timeout, every=1.0, what=f"{len(ids)} attempts to finish")


@contextmanager
def rig(data: Path, *, database_url: str, broker_url: str = "", candidates: int = 4,
        **settings: str) -> Iterator[Rig]:
    """Migrate, publish the tiny scenario, create candidates; the caller starts web and workers."""
    data.mkdir(parents=True, exist_ok=True)
    warm_reference()
    defaults = {"DOJO_QUEUE": f"dojo-test-{uuid.uuid4().hex[:8]}", "WARM_REFERENCES": "0", "LOG_FORMAT": "json",
                "HEARTBEAT_SECONDS": "1", "STALE_AFTER_SECONDS": "20", "REDISPATCH_AFTER_SECONDS": "30",
                "ATTEMPTS_PER_USER_PER_MINUTE": "1000", "WORKER_CONCURRENCY": "1"}
    env = dojo_env(DOJO_DATA_DIR=str(data), DATABASE_URL=database_url, BROKER_URL=broker_url,
                   **{**defaults, **settings})
    subprocess.run([*dojo_command(), "migrate"], cwd=ROOT_DIR, env=env, check=True, timeout=120, capture_output=True)
    engine = make_engine(database_url)
    tokens = []
    with Session(engine) as session:
        solution = dict(publish_tiny(session=session).content["solution_files"])
        for _ in range(candidates):
            user = create_user(session=session, email=f"r-{uuid.uuid4().hex[:10]}@example.com", password=None,
                               role="candidate")
            tokens.append(issue_token(session=session, user=user))
        session.commit()
    from dispatch.processes import free_port

    running = Rig(data=data, env=env, engine=engine, port=free_port(), tokens=tokens, solution=solution)
    try:
        yield running
    finally:
        for proc in [running.web, *running.workers]:
            if proc is not None and proc.poll() is None:
                kill_group(proc, sig=signal.SIGTERM)
        engine.dispose()
