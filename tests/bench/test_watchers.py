"""The benchmark's watching page polls the real app as workspace-panels.js does: conditional requests answered
304 while nothing changes, a full panel when the grading moves on, and no more polls once the panel says so."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvicorn
from app_on_engine import app_with_candidate
from sqlalchemy import Engine, update
from sqlalchemy.orm import sessionmaker

from app.attempts.models import Attempt
from app.bench import watchers
from app.bench.http import Client
from app.coaching.models import CoachingTip
from app.core.db import make_engine, utcnow
from app.scenarios.service import slug_of, sync_builtin_scenarios
from app.users.service import get_by_email

# Real servers polled for seconds at the pages' own pace: long runs, left out of scripts/test.sh --fast.
pytestmark = pytest.mark.slow

EMAIL = "watcher@example.com"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'watch.sqlite3'}")
    yield engine
    engine.dispose()


@pytest.fixture
def keep_alive_seconds() -> int:
    return 5  # uvicorn's default


@pytest.fixture
def served(engine: Engine, monkeypatch: pytest.MonkeyPatch, keep_alive_seconds: int) -> Iterator[tuple[int, str]]:
    """The app on a real port (uvicorn in a thread) and the candidate's bearer token."""
    app, token = app_with_candidate(engine, monkeypatch, email=EMAIL)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off",
                                           timeout_keep_alive=keep_alive_seconds))  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield port, token
    server.should_exit = True
    thread.join(timeout=10)


def _add_attempts(engine: Engine, count: int, **values: object) -> list[int]:
    """`count` submissions of the candidate on leaky-mask, with these column values; their ids, oldest first."""
    with sessionmaker(bind=engine)() as session:
        version = next(v for v in sync_builtin_scenarios(session=session)
                       if slug_of(session=session, version=v) == "leaky-mask")
        user = get_by_email(session=session, email=EMAIL)
        added = [Attempt(user_id=user.id, scenario_version_id=version.id, kind="submit", files={}, **values)
                 for _ in range(count)]
        session.add_all(added)
        session.commit()
        return [attempt.id for attempt in added]


def _wait_for(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_watching_page_gets_304s_then_the_new_step_then_stops(engine: Engine, served: tuple[int, str]) -> None:
    port, token = served
    factory = sessionmaker(bind=engine)
    [attempt_id] = _add_attempts(engine, 1, status="running", progress={"stage": "training", "k": 10, "n": 200})

    tally = watchers._Tally()

    def grading_moves_on() -> None:
        # Each step waits for what the page has seen, not for a fixed time: on a loaded machine the first
        # answers can take longer than any sleep.
        _wait_for(lambda: tally.not_modified >= 2)  # a few unchanged polls first
        with factory() as session:
            session.execute(update(Attempt).where(Attempt.id == attempt_id).values(
                progress={"stage": "training", "k": 20, "n": 200}))
            session.commit()
        _wait_for(lambda: tally.polls - tally.not_modified >= 2)  # the first panel and the new step
        with factory() as session:
            session.execute(update(Attempt).where(Attempt.id == attempt_id).values(
                status="passed", progress=None, finished_at=utcnow()))
            session.add(CoachingTip(attempt_id=attempt_id, source="rules", component=None, framing="F.",
                                    pro_tip="P.", steps=["a", "b", "c"]))
            session.commit()

    mover = threading.Thread(target=grading_moves_on)
    start = time.monotonic()
    mover.start()
    asyncio.run(watchers._watch(port, token, f"/challenges/leaky-mask/attempts/{attempt_id}/panel", "conditional",
                                (start, start + 60), tally))
    mover.join()
    # It stopped by itself, not at the window's end: the finished panel with its tips says data-poll="no".
    assert tally.finished == 1 and tally.polling == 0 and tally.errors == 0
    assert tally.not_modified >= 2  # the unchanged polls were 304s
    assert tally.polls - tally.not_modified >= 3  # the first panel, the new step, the verdict


def test_a_page_waiting_behind_others_polls_slowly_until_it_is_next(engine: Engine, served: tuple[int, str]) -> None:
    """The fragment says how many wait ahead (data-ahead); a change of that alone does not bring the poll back
    to 400 ms, and the delay grows to a second per attempt ahead (10 s at most); being next does (the same rule
    as workspace-panels.js)."""
    port, token = served
    factory = sessionmaker(bind=engine)
    *others, mine = _add_attempts(engine, 13, status="queued")

    client = Client("127.0.0.1", port, token=token)

    def panel() -> bytes:
        return client.get(f"/challenges/leaky-mask/attempts/{mine}/panel", extra={"HX-Request": "true"}).body

    def set_status(ids: list[int], status: str) -> None:
        with factory() as session:
            session.execute(update(Attempt).where(Attempt.id.in_(ids)).values(status=status))
            session.commit()

    try:
        twelve_ahead = panel()
        assert b'data-ahead="12"' in twelve_ahead and b"12 ahead of yours" in twelve_ahead
        assert watchers.scheduled(watchers.MIN_DELAY_S, twelve_ahead) == watchers.WAITING_MIN_DELAY_S
        set_status(others[:1], "passed")
        eleven_ahead = panel()
        assert b'data-ahead="11"' in eleven_ahead
        # Only the queue moved: the delay keeps growing from where it was, to 10 s at most.
        assert watchers.next_delay(2.0, twelve_ahead, eleven_ahead) == 3.0
        assert watchers.next_delay(9.0, twelve_ahead, eleven_ahead) == watchers.WAITING_MAX_DELAY_S
        set_status(others[1:11], "passed")
        one_ahead = panel()
        assert b'data-ahead="1"' in one_ahead
        assert watchers.next_delay(9.0, eleven_ahead, one_ahead) == watchers.WAITING_MIN_DELAY_S  # nearly its turn
        set_status(others[11:], "running")
        next_up = panel()
        assert b'data-ahead="0"' in next_up and b"yours is next" in next_up
        assert watchers.next_delay(2.0, one_ahead, next_up) == watchers.MIN_DELAY_S
        assert watchers.scheduled(watchers.MIN_DELAY_S, next_up) == watchers.MIN_DELAY_S
        set_status([mine], "running")
        running = panel()
        assert b"data-ahead" not in running
        assert watchers.grown(3.0, running) == watchers.MAX_DELAY_S  # a running attempt: the usual 3 s at most
    finally:
        client.close()


@pytest.mark.parametrize("keep_alive_seconds", [1])
def test_a_page_polling_slower_than_the_keep_alive_opens_a_new_connection(engine: Engine,
                                                                          served: tuple[int, str]) -> None:
    """The server closes an idle connection before the waiting page's next poll (2 s): the page opens another, as
    a browser does, rather than failing."""
    port, token = served
    *_, mine = _add_attempts(engine, 4, status="queued")
    tally = watchers._Tally()
    start = time.monotonic()
    asyncio.run(watchers._watch(port, token, f"/challenges/leaky-mask/attempts/{mine}/panel", "conditional",
                                (start, start + 7), tally))
    assert tally.errors == 0
    # Every poll after the first found its connection closed; the ETag of the answer that set the session
    # cookie is kept, so the unchanged panel is a 304.
    assert tally.polls >= 3 and tally.not_modified >= 1
