"""Coaching stored per attempt: one block per note first (with the note and the rules), then the rest."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.orm import Session

from app.coaching.models import AI_NOTICE
from app.coaching.service import coach_attempt, tips_of
from app.core.db import utcnow

from . import factories
from .conftest import graded
from .notes_corpus import SAMPLE

TIP_KEYS = {"id", "note", "question", "component", "framing", "pro_tip", "steps", "notice", "source", "rules", "why",
            "rating"}


def test_sample_notes_get_one_block_each_the_first_flagging_the_label_shift(db: Session) -> None:
    version = factories.builtin_version(db, "leaky-mask")
    owner = factories.user(db)
    row = factories.attempt(db, owner=owner, version=version, notes=SAMPLE,
                            result=graded("leaky-mask", "mutant:labels-not-shifted").result)
    coach_attempt(session=db, attempt_id=row.id)
    tips = tips_of(session=db, attempt_id=row.id)
    assert all(set(t) == TIP_KEYS for t in tips)
    assert [t["note"] for t in tips[:3]] == ["find", "verify", "approach"]
    assert all(t["note"] is None for t in tips[3:])
    first = tips[0]
    assert first["question"] == "How did you find the bugs?"
    assert first["rules"][0] == "note.claim-contradicted" and "label shift" in first["framing"]
    assert "still fails hidden checks" in first["framing"]
    assert all(t["notice"] == AI_NOTICE and t["source"] == "rules" and t["rating"] is None for t in tips)
    assert all(3 <= len(t["steps"]) <= 5 and t["why"] for t in tips)


def test_coaching_again_replaces_the_tips(db: Session) -> None:
    version = factories.builtin_version(db, "warm-up")
    row = factories.attempt(db, owner=factories.user(db), version=version, result=graded("warm-up", "starter").result,
                            notes={"find": "Poked around."})
    first = coach_attempt(session=db, attempt_id=row.id)
    again = coach_attempt(session=db, attempt_id=row.id)
    stored = tips_of(session=db, attempt_id=row.id)
    assert len(first) == len(again) == len(stored)
    assert {t["id"] for t in stored} == {r.id for r in again}


def test_scratch_runs_and_unfinished_attempts_get_no_tips(db: Session) -> None:
    version = factories.builtin_version(db, "warm-up")
    owner = factories.user(db)
    scratch = factories.attempt(db, owner=owner, version=version, kind="scratch", status="passed")
    queued = factories.attempt(db, owner=owner, version=version, status="queued")
    assert coach_attempt(session=db, attempt_id=scratch.id) == []
    assert coach_attempt(session=db, attempt_id=queued.id) == []
    assert coach_attempt(session=db, attempt_id=10**9) == []


def test_an_attempt_that_did_not_run_gets_error_advice_and_unchecked_claims(db: Session) -> None:
    version = factories.builtin_version(db, "warm-up")
    row = factories.attempt(db, owner=factories.user(db), version=version, status="error",
                            error={"kind": "syntax", "message": "SyntaxError: invalid syntax (model.py:3)"},
                            notes={"verify": "I fixed the positional embeddings."})
    coach_attempt(session=db, attempt_id=row.id)
    tips = tips_of(session=db, attempt_id=row.id)
    assert tips[0]["note"] == "verify" and tips[0]["rules"][0] == "note.claim-unchecked"
    assert tips[1]["rules"] == ["error"] and "import cleanly" in tips[1]["framing"]


def test_history_shows_progress_repetition_and_habits(db: Session) -> None:
    version = factories.builtin_version(db, "leaky-mask")
    owner = factories.user(db)
    start = utcnow() - timedelta(minutes=10)
    starter = graded("leaky-mask", "starter").result
    for minute in (0, 1):
        factories.attempt(db, owner=owner, version=version, result=starter,
                          created_at=start + timedelta(minutes=minute))
    same = factories.attempt(db, owner=owner, version=version, result=starter,
                             created_at=start + timedelta(minutes=1, seconds=30))
    coach_attempt(session=db, attempt_id=same.id)
    rules = {r for t in tips_of(session=db, attempt_id=same.id) for r in t["rules"]}
    assert {"progress.repeated-failure", "habit.submit-without-run", "habit.no-scratch", "habit.rapid-fire"} <= rules

    factories.attempt(db, owner=owner, version=version, kind="scratch", status="passed",
                      created_at=start + timedelta(minutes=5))
    better = factories.attempt(db, owner=owner, version=version, created_at=start + timedelta(minutes=9),
                               result=graded("leaky-mask", "mutant:labels-not-shifted").result)
    coach_attempt(session=db, attempt_id=better.id)
    progress = [t for t in tips_of(session=db, attempt_id=better.id) if "progress.improved" in t["rules"]]
    assert len(progress) == 1
    assert any("3 of 4 planted bugs now pass their checks, up from 0" in s for s in progress[0]["steps"])
    assert not {"habit.submit-without-run", "habit.no-scratch", "habit.rapid-fire"} & set(progress[0]["rules"])


def test_history_is_per_challenge_scope(db: Session) -> None:
    version = factories.builtin_version(db, "leaky-mask")
    owner, other = factories.user(db), factories.user(db)
    starter = graded("leaky-mask", "starter").result
    for _ in range(2):
        factories.attempt(db, owner=other, version=version, result=starter)
    mine = factories.attempt(db, owner=owner, version=version, result=starter)
    coach_attempt(session=db, attempt_id=mine.id)
    rules = {r for t in tips_of(session=db, attempt_id=mine.id) for r in t["rules"]}
    assert not rules & {"progress.repeated-failure", "habit.rapid-fire", "habit.no-scratch"}
