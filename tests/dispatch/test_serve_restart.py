"""`dojo serve` killed mid-grading and restarted: every queued and orphaned attempt finishes."""

from __future__ import annotations

import subprocess
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.core.db import make_engine, utcnow
from app.core.paths import ROOT_DIR
from app.users.service import create_user

from .processes import dojo_command, dojo_env, free_port, kill_group, start_dojo, wait_for
from .tiny_scenario import publish_tiny, tiny_package, warm_reference

FINISHED = ("passed", "failed", "error")


def _queue_attempts(session: Session, count: int, **fields: object) -> list[int]:
    version = publish_tiny(session=session)
    starter = tiny_package().starter_files
    user = create_user(session=session, email=f"r-{uuid.uuid4().hex[:8]}@example.com", password=None, role="candidate")
    fields = {"status": "queued", **fields}
    attempts = [Attempt(user_id=user.id, scenario_version_id=version.id, kind="run", files=dict(starter), **fields)
                for _ in range(count)]
    session.add_all(attempts)
    session.commit()
    return [a.id for a in attempts]


@pytest.mark.bwrap
def test_restarted_serve_finishes_queued_and_interrupted_attempts(app_db: None, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    warm_reference()
    url = f"sqlite:///{data / 'dojo.sqlite3'}"
    env = dojo_env(DOJO_DATA_DIR=str(data), DATABASE_URL=url, HEARTBEAT_SECONDS="1", STALE_AFTER_SECONDS="4")
    env.pop("BROKER_URL", None)
    subprocess.run([*dojo_command(), "migrate"], cwd=ROOT_DIR, env=env, check=True, timeout=120,
                   capture_output=True)
    engine = make_engine(url)
    log = tmp_path / "serve.log"

    def rows() -> dict[int, Attempt]:
        with Session(engine) as session:
            return {a.id: a for a in session.scalars(select(Attempt)).all()}

    with Session(engine) as session:
        first = _queue_attempts(session, 1)[0]
    server = start_dojo(["serve", "--port", str(free_port())], env=env, log=log)
    try:
        wait_for(lambda: rows()[first].status == "running", timeout=120, what="the first server to start grading")
    finally:
        kill_group(server)  # a crash: no shutdown hooks, the grading is cut off
    assert rows()[first].status == "running"

    with Session(engine) as session:
        queued = _queue_attempts(session, 3)
        old = utcnow() - timedelta(hours=1)
        orphan = _queue_attempts(session, 1, status="running", tries=1, heartbeat_at=old, worker_id="local:gone:1:x")
    everything = [first, *queued, *orphan]

    server = start_dojo(["serve", "--port", str(free_port())], env=env, log=log)
    try:
        wait_for(lambda: all(rows()[i].status in FINISHED for i in everything), timeout=240,
                 what="every attempt to finish after the restart")
        assert server.poll() is None, "the restarted server should still be running"
    finally:
        kill_group(server, sig=15)
        engine.dispose()
    final = rows()
    assert [final[i].status for i in everything] == ["failed"] * 5, log.read_text()[-3000:]
    assert final[first].tries == 2  # started by the killed server, finished by the new one
    assert [final[i].tries for i in queued] == [1, 1, 1]
    assert final[orphan[0]].tries == 2
