"""The follow stream against real `dojo serve` processes: what a client reads from GET /api/interviews/{id}/live.

Reconnecting with Last-Event-ID misses nothing and repeats nothing; the stream ends on the interview's end and
when its client loses the right (a revoked bearer token, a signed-out cookie session, a role change), seen on
the stream itself; two processes sharing the database and a Redis: a save taken by one reaches a follower of
the other through pub/sub, long before the follower's own check would have found it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from services import require_redis

from app.bench import server
from app.bench.follow import FILE, SCENARIO, EventStream, Setup, csrf_of, set_up
from app.bench.http import Client

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[server.BenchServer, Setup]]:
    work = tmp_path_factory.mktemp("live-embedded")
    env = server.bench_env(work / "data", WARM_REFERENCES="0", WARM_SANDBOXES="0", WORKER_CONCURRENCY="1")
    serve = server.BenchServer(env=env, log=work / "serve.log")
    try:
        serve.start_and_wait(timeout=180)
        yield serve, set_up(env, 3, "stream")
    finally:
        serve.stop()


def _candidate(port: int, setup: Setup, n: int) -> tuple[Client, str]:
    client = Client(server.HOST, port)
    client.sign_in_page(setup.candidates[n], server.PASSWORD)
    return client, csrf_of(client, f"/interviews/{setup.interviews[n]}/workspace")


def _save(client: Client, csrf: str, interview_id: int, text: str) -> None:
    client.request("POST", f"/challenges/{SCENARIO}/draft?interview={interview_id}", content_type="application/json",
                   body=json.dumps({"files": {FILE: text}, "live": {"file": FILE, "cursor_line": 2}}).encode(),
                   extra={"X-CSRF-Token": csrf})


def _wait(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


def _drafts(stream: EventStream) -> list[tuple[int, str]]:
    return [(int(i), str(d["text"])) for _t, i, kind, d in stream.events if kind == "draft"]


def test_a_reconnect_with_last_event_id_gets_every_later_event_once(
    embedded: tuple[server.BenchServer, Setup],
) -> None:
    serve, setup = embedded
    interview_id = setup.interviews[0]
    bearer = {"Authorization": f"Bearer {setup.interviewer_token}"}
    candidate, csrf = _candidate(serve.port, setup, 0)
    stream = EventStream(serve.port, f"/api/interviews/{interview_id}/live", bearer).start()
    assert stream.status == 200
    for n in range(3):
        _save(candidate, csrf, interview_id, f"v{n}\n")
    _wait(lambda: len(_drafts(stream)) == 3, 10, "three draft events")
    stream.close()
    first = _drafts(stream)
    assert [text for _id, text in first] == ["v0\n", "v1\n", "v2\n"]
    last_id = stream.events[-1][1]
    for n in range(3, 5):  # saved while nobody follows
        _save(candidate, csrf, interview_id, f"v{n}\n")
    again = EventStream(serve.port, f"/api/interviews/{interview_id}/live",
                        {**bearer, "Last-Event-ID": last_id}).start()
    _wait(lambda: len(_drafts(again)) >= 2, 10, "the two events saved meanwhile")
    time.sleep(0.5)
    again.close()
    assert [text for _id, text in _drafts(again)] == ["v3\n", "v4\n"]
    ids = [int(i) for _t, i, _k, _d in [*stream.events, *again.events]]
    assert ids == sorted(set(ids)) and min(int(i) for _t, i, _k, _d in again.events) > int(last_id)
    # ?after= does the same for a first connection; a stranger, a candidate and nobody get no stream.
    fresh = EventStream(serve.port, f"/api/interviews/{interview_id}/live?after={last_id}", bearer).start()
    _wait(lambda: len(_drafts(fresh)) >= 2, 10, "events after ?after=")
    fresh.close()
    assert [text for _id, text in _drafts(fresh)] == ["v3\n", "v4\n"]
    for headers, status in (({}, 401), ({"Cookie": "; ".join(f"{k}={v}" for k, v in candidate.cookies.items())}, 404)):
        refused = EventStream(serve.port, f"/api/interviews/{interview_id}/live", headers).start()
        assert refused.status == status
        refused.close()
    candidate.close()


def _closes(stream: EventStream, action: object, what: str) -> None:
    assert stream.status == 200 and not stream.closed.is_set()
    action()  # type: ignore[operator]
    _wait(stream.closed.is_set, 8, what)


def test_the_stream_ends_when_its_client_loses_the_right(embedded: tuple[server.BenchServer, Setup]) -> None:
    serve, setup = embedded
    path = f"/api/interviews/{setup.interviews[1]}/live"
    # A bearer token revoked elsewhere.
    api = Client(server.HOST, serve.port)
    api.sign_in_api(setup.interviewer, server.PASSWORD)
    stream = EventStream(serve.port, path, {"Authorization": f"Bearer {api.token}"}).start()
    _closes(stream, lambda: api.request("DELETE", "/api/auth/token", expect=(204,)), "revoked token")
    assert all(kind != "ended" for _t, _i, kind, _d in stream.events)
    # A cookie session signed out in another tab.
    page = Client(server.HOST, serve.port)
    page.sign_in_page(setup.interviewer, server.PASSWORD)
    cookie = {"Cookie": "; ".join(f"{k}={v}" for k, v in page.cookies.items())}
    stream = EventStream(serve.port, path, cookie).start()
    csrf = csrf_of(page, "/interviewer")
    _closes(stream, lambda: page.request("POST", "/sign-out", body=f"csrf_token={csrf}".encode(),
                                         content_type="application/x-www-form-urlencoded", expect=(303,)),
            "signed-out session")
    # A role change: the interviewer is made a candidate.
    stream = EventStream(serve.port, path, {"Authorization": f"Bearer {setup.interviewer_token}"}).start()
    database = Path(serve.env["DOJO_DATA_DIR"]) / "dojo.sqlite3"

    def demote(role: str) -> None:
        with sqlite3.connect(database, timeout=30) as db:
            db.execute("UPDATE users SET role = ? WHERE email = ?", (role, setup.interviewer))

    try:
        _closes(stream, lambda: demote("candidate"), "role change")
    finally:
        demote("interviewer")


def test_runs_and_submits_appear_as_they_start_and_land(embedded: tuple[server.BenchServer, Setup]) -> None:
    serve, setup = embedded
    interview_id = setup.interviews[0]
    stream = EventStream(serve.port, f"/api/interviews/{interview_id}/live",
                         {"Authorization": f"Bearer {setup.interviewer_token}"}).start()
    database = Path(serve.env["DOJO_DATA_DIR"]) / "dojo.sqlite3"
    with sqlite3.connect(database, timeout=30) as db:  # as the grading worker would write it
        user_id, version_id = db.execute("SELECT candidate_id, scenario_version_id FROM interviews WHERE id = ?",
                                         (interview_id,)).fetchone()
        attempt_id = db.execute(
            "INSERT INTO attempts (user_id, scenario_version_id, interview_id, kind, status, files, notes, hints_used,"
            " tries, created_at) VALUES (?, ?, ?, 'run', 'queued', '{}', '{}', '{}', 0, datetime('now'))",
            (user_id, version_id, interview_id)).lastrowid

    def attempts() -> list[dict[str, object]]:
        return [d for _t, _i, kind, d in stream.events if kind == "attempt" and d["id"] == attempt_id]

    _wait(lambda: len(attempts()) == 1, 8, "the queued Run")
    with sqlite3.connect(database, timeout=30) as db:
        db.execute("UPDATE attempts SET status = 'passed', score = 0.5, finished_at = datetime('now') WHERE id = ?",
                   (attempt_id,))
    _wait(lambda: len(attempts()) == 2, 8, "the Run's verdict")
    stream.close()
    queued, passed = attempts()
    assert (queued["kind"], queued["status"], queued["number"]) == ("run", "queued", 1)
    assert str(queued["progress"]).startswith("Waiting for a grader")
    assert (passed["status"], passed["score"], passed["progress"]) == ("passed", 0.5, None)


def test_the_stream_says_ended_and_closes_when_the_interview_ends(embedded: tuple[server.BenchServer, Setup]) -> None:
    serve, setup = embedded
    interview_id = setup.interviews[2]
    stream = EventStream(serve.port, f"/api/interviews/{interview_id}/live",
                         {"Authorization": f"Bearer {setup.interviewer_token}"}).start()
    candidate, csrf = _candidate(serve.port, setup, 2)
    _closes(stream, lambda: candidate.request("POST", f"/interviews/{interview_id}/finish",
                                              body=f"csrf_token={csrf}".encode(),
                                              content_type="application/x-www-form-urlencoded", expect=(303,)),
            "the interview's end")
    assert stream.events[-1][2] == "ended" and stream.events[-1][3] == {"state": "submitted"}
    candidate.close()


def test_two_processes_share_events_through_redis(tmp_path: Path) -> None:
    redis_url = require_redis()
    env = server.bench_env(tmp_path / "data", WARM_REFERENCES="0", WARM_SANDBOXES="0", WORKER_CONCURRENCY="1",
                           LIVE_REDIS_URL=redis_url, LIVE_CHECK_SECONDS="30")
    first = server.BenchServer(env=env, log=tmp_path / "a.log")
    second = server.BenchServer(env=env, log=tmp_path / "b.log")
    try:
        first.start_and_wait(timeout=180)
        second.start_and_wait(timeout=180)
        setup = set_up(env, 1, "redis")
        stream = EventStream(first.port, f"/api/interviews/{setup.interviews[0]}/live",
                             {"Authorization": f"Bearer {setup.interviewer_token}"}).start()
        candidate, csrf = _candidate(second.port, setup, 0)
        time.sleep(1.0)  # the follower's first check is done: only a wake-up brings the next event early
        saved_at = time.monotonic()
        _save(candidate, csrf, setup.interviews[0], "through redis\n")
        # The follower's own check comes every 30 s here: within 5 s, only pub/sub can have woken it.
        _wait(lambda: any(kind == "draft" for _t, _i, kind, _d in stream.events), 5, "the event from the other process")
        arrived = next(t for t, _i, kind, _d in stream.events if kind == "draft")
        assert arrived - saved_at < 5
        stream.close()
        candidate.close()
    finally:
        first.stop()
        second.stop()
