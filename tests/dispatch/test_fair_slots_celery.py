"""Fair slots on the Celery path, with the real Redis and a real `dojo worker`.

What holds there: the sender gives each grading the broker priority of its place in line (an interview
on the clock first, then practice, reference runs, background work), and the claim keeps a user to one
grading at a time across every worker process; a refused attempt stays queued and is sent again when
the user's grading ends. Uses a Redis database and a queue name of its own, whose keys it deletes.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from app.attempts import slots
from app.attempts.job_kinds import grade_job
from app.attempts.models import Attempt
from app.core.db import make_engine, utcnow
from app.core.paths import ROOT_DIR
from app.core.security import new_token, token_digest
from app.core.settings import get_settings
from app.dispatch import celery_app
from app.dispatch.registry import Job
from app.interviews.models import Interview
from app.users.models import User
from app.users.service import create_user

from .processes import dojo_command, dojo_env, kill_group, start_dojo, wait_for
from .test_celery_redis import DISPATCH_REDIS_URL, _delete_queue_keys
from .tiny_scenario import publish_tiny, warm_reference

FINISHED = ("passed", "failed", "error")
# Long enough that the holder's first grading still runs while the others are graded (a sandbox's import
# limit may end it sooner: the checks below only need the other user's grading to start before it ends).
SLEEP_AT_IMPORT = "import time\ntime.sleep(40)\n"


@dataclass
class Rig:
    engine: Engine
    env: dict[str, str]  # a `dojo worker`'s environment: the rig's database, broker and queue
    queue: str
    files: dict[str, str]
    version_id: int

    def attempt(self, *, email: str, kind: str = "run", files: dict[str, str] | None = None,
                interview: bool = False) -> int:  # fmt: skip
        """A queued attempt of the user with this email (made on first use), optionally of an interview
        whose clock runs."""
        with Session(self.engine) as session:
            user = session.scalar(select(User).where(User.email == email))
            if user is None:
                user = create_user(session=session, email=email, password=None, role="candidate")
            interview_id = None
            if interview:
                staff = create_user(session=session, email=f"i-{uuid.uuid4().hex[:8]}@example.com", password=None,
                                    role="interviewer")  # fmt: skip
                row = Interview(interviewer_id=staff.id, candidate_id=user.id, candidate_email=email,
                                scenario_version_id=self.version_id, invite_token_hash=token_digest(new_token()),
                                invite_expires_at=utcnow(), invite_used_at=utcnow(), started_at=utcnow())
                session.add(row)
                session.flush()
                interview_id = row.id
            attempt = Attempt(user_id=user.id, scenario_version_id=self.version_id, kind=kind, status="queued",
                              files=files or self.files, interview_id=interview_id)
            session.add(attempt)
            session.commit()
            return attempt.id

    def row(self, attempt_id: int) -> Attempt:
        with Session(self.engine) as session:
            return session.scalars(select(Attempt).where(Attempt.id == attempt_id)).one()


@contextmanager
def celery_rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    """A fresh data directory with the tiny scenario's reference; this process sends to the rig's queue
    through the app's own sender, reading places in line from the rig's database."""
    queue = f"dojo-test-{uuid.uuid4().hex[:8]}"
    data = tmp_path / "data"
    data.mkdir()
    warm_reference()
    url = f"sqlite:///{data / 'dojo.sqlite3'}"
    env = dojo_env(DOJO_DATA_DIR=str(data), DATABASE_URL=url, BROKER_URL=DISPATCH_REDIS_URL, DOJO_QUEUE=queue,
                   HEARTBEAT_SECONDS="0.5", STALE_AFTER_SECONDS="10")
    subprocess.run([*dojo_command(), "migrate"], cwd=ROOT_DIR, env=env, check=True, timeout=120, capture_output=True)
    engine = make_engine(url)
    with Session(engine) as session:
        version = publish_tiny(session=session)
        session.commit()
        rig = Rig(engine=engine, env=env, queue=queue, files=dict(version.content["solution_files"]),
                  version_id=version.id)
    monkeypatch.setattr(get_settings(), "broker_url", DISPATCH_REDIS_URL)
    monkeypatch.setenv("DOJO_QUEUE", queue)
    monkeypatch.setattr(slots, "new_session", lambda: Session(engine, expire_on_commit=False))
    celery_app.get_celery.cache_clear()
    broker = redis.Redis.from_url(DISPATCH_REDIS_URL)
    try:
        yield rig
    finally:
        celery_app.get_celery().close()
        celery_app.get_celery.cache_clear()
        engine.dispose()
        _delete_queue_keys(broker, queue)
        broker.close()


@pytest.mark.slow  # its rig migrates a database and loads every built-in: over ten seconds
@pytest.mark.redis
def test_the_sender_puts_clock_gradings_first_practice_next_and_background_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with celery_rig(tmp_path, monkeypatch) as rig:
        practice = rig.attempt(email="p@example.com")
        on_clock = rig.attempt(email="c@example.com", interview=True)
        for job in (grade_job(practice), grade_job(on_clock), Job("attempt", practice, background=True)):
            celery_app.send(job)
        broker = redis.Redis.from_url(DISPATCH_REDIS_URL)
        try:
            def ids(key: str) -> list[str]:
                return [json.loads(raw)["headers"]["argsrepr"] for raw in broker.lrange(key, 0, -1)]

            # kombu's Redis lists: the queue itself is step 0; a worker pops step 0 of every queue first.
            assert ids(rig.queue) == [f"[{on_clock}]"]
            assert ids(f"{rig.queue}\x06\x163") == [f"[{practice}]"]
            assert ids(f"{rig.queue}-background\x06\x169") == [f"[{practice}]"]
            assert celery_app.queue_backlog() == 2
        finally:
            broker.close()


@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.bwrap
def test_a_real_worker_grades_the_clock_first_and_gives_a_user_one_slot_while_others_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with celery_rig(tmp_path, monkeypatch) as rig:
        sleepy = {**rig.files, "model.py": SLEEP_AT_IMPORT + rig.files["model.py"]}
        first = rig.attempt(email="holder@example.com", kind="run", files=sleepy)
        second = rig.attempt(email="holder@example.com", kind="submit", files=sleepy)
        other = rig.attempt(email="other@example.com")
        on_clock = rig.attempt(email="candidate@example.com", interview=True)
        for attempt_id in (first, second, other, on_clock):  # all waiting before the worker starts
            celery_app.send(grade_job(attempt_id))
        log = tmp_path / "worker.log"
        worker = start_dojo(["worker", "--concurrency", "3"], env=rig.env, log=log)
        try:
            done = wait_for(lambda: (r := rig.row(other)).status in FINISHED and r, timeout=240,
                            what="the other user's grading")  # fmt: skip
            clock_row = wait_for(lambda: (r := rig.row(on_clock)).status in FINISHED and r, timeout=240,
                                 what="the interview's grading")  # fmt: skip
            # With three worker threads the holder's two attempts are claimed at once, and either may win
            # the user's one slot: the one that started holds it, the other waits.
            held, waiting = rig.row(first), rig.row(second)
            if held.started_at is None:
                held, waiting = waiting, held
        finally:
            kill_group(worker)
        text = log.read_text()
        assert done.status == "passed" and clock_row.status == "passed", text[-3000:]
        # Sent last, taken first: the clock's priority step is popped before practice.
        assert clock_row.started_at is not None and done.started_at is not None
        assert clock_row.started_at < done.started_at
        # The other user's grading started while the holder's first still ran (or before it ended) ...
        assert held.started_at is not None
        assert held.finished_at is None or done.started_at < held.finished_at
        # ... and the holder's second was refused a slot while their first ran.
        assert waiting.started_at is None or (held.finished_at is not None and waiting.started_at >= held.finished_at)
        assert f"attempt {waiting.id}: waits for its user's grading in progress" in text
