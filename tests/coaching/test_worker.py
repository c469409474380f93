"""Coaching in the worker, after grading: the model is asked outside any transaction, and the grading stands
whatever the coach does."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from dispatch.conftest import app_db  # noqa: F401  (the process-wide database the worker uses)
from sqlalchemy import update

from app.attempts.grading import GradeOutcome
from app.attempts.grading_job import grade_attempt
from app.attempts.models import Attempt
from app.coaching.service import tips_of
from app.core.db import new_session
from app.core.settings import get_settings
from app.users.models import User

from . import factories
from .conftest import graded
from .llm_server import ChatServer, chat_server
from .notes_corpus import SAMPLE

RESULT = graded("leaky-mask", "mutant:labels-not-shifted").result


def _queued_sample() -> int:
    with new_session() as session:
        version = factories.builtin_version(session, "leaky-mask")
        attempt = factories.attempt(session, owner=factories.user(session), version=version, status="queued",
                                    notes=SAMPLE)
        session.commit()
        return attempt.id


def _grader(**_kwargs: object) -> GradeOutcome:
    return GradeOutcome(status="failed", result=RESULT, error=None, score=0.75)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    with chat_server() as server:
        settings = get_settings()
        monkeypatch.setattr(settings, "coach_llm_url", server.url)
        monkeypatch.setattr(settings, "coach_llm_model", "tiny-coach")
        monkeypatch.setattr(settings, "coach_llm_timeout_seconds", 5.0)
        yield server


def test_the_worker_asks_the_model_without_holding_a_lock(app_db: None, model: ChatServer) -> None:  # noqa: F811
    waited: list[float] = []

    def reply(body: dict) -> tuple[int, str, float]:
        started = time.monotonic()
        with new_session() as session:  # another writer while the model "thinks": must not wait for the coach
            session.execute(update(User).where(User.id == -1).values(display_name="x"))
            session.execute(update(Attempt).where(Attempt.id == -1).values(tries=0))
            session.commit()
        waited.append(time.monotonic() - started)
        notes = [n["id"] for n in json.loads(body["messages"][1]["content"])["notes"]]
        tips = [{"note": n, "component": None, "framing": f"Frame your answer around your {n} note.",
                 "pro_tip": "Quote a number.", "steps": ["One check.", "Its number.", "What it ruled out."]}
                for n in notes]
        return 200, json.dumps({"tips": tips}), 0.0

    model.reply = reply
    attempt_id = _queued_sample()
    assert grade_attempt(attempt_id, grader=_grader) == "graded"
    with new_session() as session:
        tips = tips_of(session=session, attempt_id=attempt_id)
        status = session.get(Attempt, attempt_id).status  # type: ignore[union-attr]
    assert status == "failed"
    assert [(t["note"], t["source"]) for t in tips] == [
        ("find", "llm:tiny-coach"), ("verify", "llm:tiny-coach"), ("approach", "llm:tiny-coach"), (None, "rules")]
    assert waited and waited[0] < 2.0


def test_a_failing_coach_never_undoes_the_grading(app_db: None, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from app.coaching import service

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("coach down")

    monkeypatch.setattr(service, "write_tips", broken)
    attempt_id = _queued_sample()
    assert grade_attempt(attempt_id, grader=_grader) == "graded"
    with new_session() as session:
        assert session.get(Attempt, attempt_id).status == "failed"  # type: ignore[union-attr]
        assert tips_of(session=session, attempt_id=attempt_id) == []
