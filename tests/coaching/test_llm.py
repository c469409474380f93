"""The optional model coach against a local OpenAI-compatible server: used when valid, the rules otherwise."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app.coaching import llm
from app.coaching.service import coach_attempt, tips_of
from app.core.settings import get_settings
from app.engine.builtin import find_builtin
from app.engine.gpt_v1.checks import SPECS

from . import factories
from .conftest import graded
from .llm_server import ChatServer, chat_server
from .notes_corpus import SAMPLE

MODEL = "tiny-coach"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    with chat_server() as running:
        settings = get_settings()
        monkeypatch.setattr(settings, "coach_llm_url", running.url)
        monkeypatch.setattr(settings, "coach_llm_model", MODEL)
        monkeypatch.setattr(settings, "coach_llm_timeout_seconds", 1.0)
        yield running


def _answer(notes: list[str], **changes: Any) -> str:
    tips = [{"note": note, "component": None, "framing": f"Frame your answer around what your {note} note shows.",
             "pro_tip": "Pro tip: quote the number behind each claim.",
             "steps": ["Name the check you ran.", "Give the number it printed.", "Say what it ruled out."]}
            for note in notes]
    tips.append({"note": None, "component": "loss", "framing": "Start by outlining what each position predicts.",
                 "pro_tip": "Check one batch by eye.", "steps": ["Print x and y.", "Compare them.", "Write it down."]})
    for key, value in changes.items():
        tips[0][key] = value
    return json.dumps({"tips": tips})


def _coach(db: Session) -> list[dict[str, Any]]:
    version = factories.builtin_version(db, "leaky-mask")
    row = factories.attempt(db, owner=factories.user(db), version=version, notes=SAMPLE,
                            result=graded("leaky-mask", "mutant:labels-not-shifted").result)
    coach_attempt(session=db, attempt_id=row.id)
    return tips_of(session=db, attempt_id=row.id)


def test_a_valid_answer_is_stored_with_the_model_as_source(server: ChatServer, sqlite_db: Session) -> None:
    server.reply = lambda _body: (200, "```json\n" + _answer(["find", "verify", "approach"]) + "\n```", 0.0)
    tips = _coach(sqlite_db)
    assert server.paths == ["/v1/chat/completions"]
    assert [t["note"] for t in tips] == ["find", "verify", "approach", None, None]
    assert all(t["source"] == f"llm:{MODEL}" for t in tips[:4])
    # Progress and habits are the history's, not the model's: the rules' block follows, marked as theirs.
    assert tips[4]["source"] == "rules" and tips[4]["rules"] == ["habit.submit-without-run"]
    assert tips[0]["pro_tip"] == "quote the number behind each claim."  # the "Pro tip:" label is the page's
    assert tips[0]["rules"][:2] == ["llm", "note.claim-contradicted"]  # the rules behind the same note
    request = server.requests[0]
    assert request["model"] == MODEL and [m["role"] for m in request["messages"]] == ["system", "user"]


def test_the_prompt_carries_the_evidence_but_nothing_that_names_a_bug_or_a_test(
    server: ChatServer, sqlite_db: Session
) -> None:
    server.reply = lambda _body: (200, "not json", 0.0)
    _coach(sqlite_db)
    prompt = server.requests[0]["messages"][1]["content"]
    facts = json.loads(prompt)
    assert [n["id"] for n in facts["notes"]] == ["find", "verify", "approach"]
    assert facts["notes"][0]["claims"][0]["grading_says"] == "contradicted"
    assert facts["training_run"]["initial_loss"] is not None
    package = find_builtin("leaky-mask")
    lowered = prompt.lower()
    for bug in package.bugs:
        assert bug.id not in lowered and bug.title.lower() not in lowered
        assert bug.explanation["fix"].lower() not in lowered
    assert not [test for test, spec in SPECS.items() if not spec.public and test in lowered]


@pytest.mark.parametrize("case", ["not-json", "missing-note", "bad-framing", "two-steps", "leak", "http-500",
                                  "timeout", "not-a-completion"])
def test_an_invalid_slow_or_failing_model_leaves_the_rules_answer(
    case: str, server: ChatServer, sqlite_db: Session
) -> None:
    notes = ["find", "verify", "approach"]
    replies = {
        "not-json": (200, "Here are my tips!", 0.0),
        "missing-note": (200, _answer(notes[:2]), 0.0),
        "bad-framing": (200, _answer(notes, framing="You should fix the label shift by hand."), 0.0),
        "two-steps": (200, _answer(notes, steps=["One.", "Two."]), 0.0),
        "leak": (200, _answer(notes, steps=["Take y from data[i + 1 : i + 1 + block_size].", "b", "c"]), 0.0),
        "http-500": (500, "", 0.0),
        "timeout": (200, _answer(notes), 2.5),
        "not-a-completion": (200, "", 0.0),
    }
    server.reply = lambda _body: replies[case]
    if case == "not-a-completion":
        server.reply = lambda _body: (200, json.dumps({"tips": "nope"}), 0.0)
    tips = _coach(sqlite_db)
    assert server.requests, "the model was asked"
    assert tips and all(t["source"] == "rules" for t in tips)
    assert tips[0]["rules"][0] == "note.claim-contradicted"


def test_an_unreachable_or_misconfigured_endpoint_leaves_the_rules_answer(
    monkeypatch: pytest.MonkeyPatch, sqlite_db: Session
) -> None:
    settings = get_settings()
    monkeypatch.setattr(settings, "coach_llm_model", MODEL)
    for url in ("http://127.0.0.1:9/v1", "file:///etc/passwd"):
        monkeypatch.setattr(settings, "coach_llm_url", url)
        assert llm.configured()
        assert all(t["source"] == "rules" for t in _coach(sqlite_db))


def test_endpoint_accepts_a_base_or_a_full_url() -> None:
    assert llm.endpoint("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert llm.endpoint("https://h/v1/chat/completions") == "https://h/v1/chat/completions"
    with pytest.raises(ValueError):
        llm.endpoint("ftp://h/v1")


def test_off_by_default() -> None:
    assert not llm.configured()
