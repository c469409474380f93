"""The sweeper sends queued attempts whose dispatch failed or was lost, once, and stops at a down broker."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.attempts.dispatch_models import AttemptDispatch
from app.attempts.sweeper import redispatch_queued
from app.core.db import new_session, utcnow


def _dispatch(attempt_id: int, *, sent_ago: float | None) -> None:
    with new_session() as session:
        sent_at = None if sent_ago is None else utcnow() - timedelta(seconds=sent_ago)
        session.add(AttemptDispatch(attempt_id=attempt_id, sent_at=sent_at))
        session.commit()


def _mine(sent: list[int], ids: list[int]) -> list[int]:
    return [attempt_id for attempt_id in sent if attempt_id in ids]  # other tests' queued rows may be due too


def test_unsent_and_long_unanswered_attempts_are_sent_once(committed_attempt: Callable[..., int]) -> None:
    failed, lost, fresh, legacy = (committed_attempt() for _ in range(4))
    _dispatch(failed, sent_ago=None)
    _dispatch(lost, sent_ago=3600)
    _dispatch(fresh, sent_ago=0)
    # `legacy` has no dispatch row at all (queued before the table existed).
    ids = [failed, lost, fresh, legacy]
    sent: list[int] = []
    assert _mine(redispatch_queued(send=sent.append, older_than_seconds=60), ids) == [failed, lost, legacy]
    assert _mine(sent, ids) == [failed, lost, legacy]
    # A second sweeper (another process) running right after sends nothing again.
    again: list[int] = []
    redispatch_queued(send=again.append, older_than_seconds=60)
    assert _mine(again, ids) == []
    with new_session() as session:
        assert session.get(AttemptDispatch, failed).sends == 1  # type: ignore[union-attr]


def test_a_failed_send_stops_the_round_and_leaves_the_attempt_due(committed_attempt: Callable[..., int]) -> None:
    first, second = committed_attempt(), committed_attempt()
    _dispatch(first, sent_ago=None)
    _dispatch(second, sent_ago=None)
    calls: list[int] = []

    def broker_down(attempt_id: int) -> None:
        calls.append(attempt_id)
        raise ConnectionError("broker down")

    redispatch_queued(send=broker_down, older_than_seconds=60)
    assert len(calls) == 1  # no point trying the rest against a broker that is down
    with new_session() as session:
        rows = [session.get(AttemptDispatch, i) for i in (first, second)]
        assert all(row is not None and row.sent_at is None for row in rows)
    back: list[int] = []
    redispatch_queued(send=back.append, older_than_seconds=60)
    assert first in back and second in back


def test_finished_attempts_are_never_sent_again(committed_attempt: Callable[..., int]) -> None:
    done = committed_attempt(status="passed")
    _dispatch(done, sent_ago=None)
    sent: list[int] = []
    redispatch_queued(send=sent.append, older_than_seconds=60)
    assert done not in sent
    with new_session() as session:
        session.execute(update(AttemptDispatch).where(AttemptDispatch.attempt_id == done).values(sends=0))
        session.commit()


def test_old_sends_wait_while_the_broker_still_holds_messages(committed_attempt: Callable[..., int]) -> None:
    """A long queue is not a lost message: old sends are repeated only once the broker's queue is empty."""
    failed, old = committed_attempt(), committed_attempt()
    _dispatch(failed, sent_ago=None)
    _dispatch(old, sent_ago=3600)
    ids = [failed, old]
    busy: list[int] = []
    redispatch_queued(send=busy.append, older_than_seconds=60, backlog=lambda: 25)
    assert _mine(busy, ids) == [failed]

    def unreachable() -> int:
        raise ConnectionError("broker down")

    down: list[int] = []
    redispatch_queued(send=down.append, older_than_seconds=60, backlog=unreachable)
    assert _mine(down, ids) == []
    drained: list[int] = []
    redispatch_queued(send=drained.append, older_than_seconds=60, backlog=lambda: 0)
    assert _mine(drained, ids) == [old]


@pytest.mark.redis
def test_queue_backlog_counts_the_messages_waiting_on_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    import uuid

    import redis
    from services import REDIS_URL

    from app.core.settings import get_settings
    from app.dispatch.celery_app import queue_backlog

    queue = f"dojo-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(get_settings(), "broker_url", REDIS_URL)
    monkeypatch.setenv("DOJO_QUEUE", queue)
    client = redis.Redis.from_url(REDIS_URL)
    try:
        assert queue_backlog() == 0
        client.rpush(queue, b"one", b"two")
        client.rpush(f"{queue}\x06\x163", b"three")
        assert queue_backlog() == 3
    finally:
        client.delete(queue, f"{queue}\x06\x163")
        client.close()
