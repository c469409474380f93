"""Outages survived, on real processes: `dojo serve`, `dojo worker`, and a redis-server and a PostgreSQL
of the test's own (on other ports) that the test stops and starts again.

Broker down: submissions are accepted and stay queued; once the broker is back, the sweepers send
them, with no restart, and each is graded exactly once. Database down: requests get a clean 503
(JSON or a page), the app recovers by itself, and no attempt is lost or graded twice.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from services import service_missing

from ops.instances import (
    PostgresInstance,
    RedisInstance,
    own_postgres,
    own_redis,
    postgres_bin_dir,
    redis_server_binary,
)
from ops.rig import FINISHED, Rig, rig

pytestmark = [pytest.mark.bwrap]


@pytest.fixture
def redis_instance() -> Iterator[RedisInstance]:
    if redis_server_binary() is None:
        service_missing("redis-server is not installed (apt-get install redis-server)")
    with own_redis() as instance:
        yield instance


@pytest.fixture
def postgres_instance() -> Iterator[PostgresInstance]:
    if postgres_bin_dir() is None:
        service_missing("PostgreSQL server binaries are not installed (apt-get install postgresql)")
    with own_postgres() as instance:
        yield instance


def _graded_once(rows: list, ids: list[int]) -> None:
    assert [r.id for r in rows] == sorted(ids), "an attempt was lost"
    assert all(r.status == "passed" for r in rows), [(r.id, r.status, r.error) for r in rows]
    assert all(r.tries == 1 for r in rows), [(r.id, r.tries) for r in rows]


def test_broker_outage_submissions_wait_queued_and_are_graded_once_it_is_back(
    redis_instance: RedisInstance, tmp_path: Path
) -> None:
    with rig(tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'data' / 'dojo.sqlite3'}",
             broker_url=redis_instance.url) as running:
        running.start_web()
        running.start_worker(0)
        warm = running.submit(0)
        assert warm.status == 202, warm.body
        running.wait_finished([warm.body["id"]], timeout=240)

        redis_instance.stop()
        before = running.counts()
        ids = []
        for n in range(3):
            started = time.monotonic()
            reply = running.submit(n)
            assert reply.status == 202, reply.body  # accepted although the broker is down
            assert time.monotonic() - started < 10
            ids.append(reply.body["id"])
        time.sleep(3)
        assert [r.status for r in running.attempts(ids)] == ["queued"] * 3
        assert running.request("GET", "/readyz").status == 503

        redis_instance.start()  # empty: it kept nothing (no persistence)
        rows = running.wait_finished(ids, timeout=300)
        _graded_once(rows, ids)
        after = running.counts()
        assert after.get("passed", 0) == before.get("passed", 0) + 3
        assert after.get("queued", 0) == after.get("running", 0) == 0
        assert running.request("GET", "/readyz").status == 200


def test_database_restart_gives_clean_503s_and_the_app_recovers_by_itself(
    postgres_instance: PostgresInstance, tmp_path: Path
) -> None:
    with rig(tmp_path / "data", database_url=postgres_instance.url) as running:
        running.start_web()  # local grading pool inside dojo serve
        first = running.submit(0)
        assert first.status == 202, first.body
        running.wait_finished([first.body["id"]], timeout=240)
        ids = [running.submit(n).body["id"] for n in range(1, 3)]

        postgres_instance.stop()
        down_api = running.request("GET", f"/api/attempts/{ids[0]}", token=running.tokens[1])
        assert down_api.status == 503, down_api.body
        assert "database" in down_api.body["detail"].lower()
        down_submit = running.submit(3)
        assert down_submit.status == 503
        down_page = running.request("GET", "/candidate", token=running.tokens[1])
        assert down_page.status == 503
        assert "Temporarily unavailable" in down_page.body and "try again" in down_page.body
        assert running.request("GET", "/healthz").status == 200  # alive, just not ready
        assert running.request("GET", "/readyz").status == 503

        postgres_instance.start()
        _wait_ok(running, ids[0])
        rows = running.wait_finished([first.body["id"], *ids], timeout=300)
        _graded_once(rows, [first.body["id"], *ids])
        assert running.submit(3).status == 202  # and new work is accepted again


def _wait_ok(running: Rig, attempt_id: int) -> None:
    from dispatch.processes import wait_for

    wait_for(lambda: running.request("GET", f"/api/attempts/{attempt_id}", token=running.tokens[1]).status == 200,
             timeout=60, what="the app to answer again after the database came back")
    assert FINISHED
