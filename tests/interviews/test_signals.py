"""Integrity signals: evidence from stored attempts and editor events, computed on the server."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from sqlalchemy.orm import Session
from web.support import Account

from app.core.db import utcnow
from app.interviews.record import build_record
from app.interviews.signals.detect import signals_for
from app.interviews.signals.fingerprints import normalised_tokens
from app.interviews.signals.introspection import scan_file
from app.interviews.signals.model import Signal
from app.scenarios.models import ScenarioVersion
from app.workspace.models import WorkspaceEvent, scope_for
from interviews.factories import add_attempt, package_of, started_interview

INTROSPECTING = '''
import sys
import torch.nn.functional as F

def _peek():
    frame = sys._getframe(1)
    return frame.f_back.f_globals

F.cross_entropy = lambda *args, **kwargs: 0.0
'''
OWN_HELPER = '''

def running_mean_of_losses(values, momentum=0.9):
    """A helper nobody else would write the same way."""
    total, weight = 0.0, 0.0
    for index, value in enumerate(values):
        total = momentum * total + (1 - momentum) * value * (index + 3)
        weight = momentum * weight + (1 - momentum) * (index + 3)
    return total / max(weight, 1e-12)
'''


def _signals(db: Session, interview: object) -> dict[str, Signal]:
    record = build_record(session=db, interview=interview, with_details=False)  # type: ignore[arg-type]
    return {s.kind: s for s in signals_for(session=db, record=record)}


def _interview(db: Session, make_account: Callable[..., Account], version: ScenarioVersion) -> tuple[object, object]:
    candidate = make_account("candidate").user
    interview = started_interview(db=db, interviewer=make_account("interviewer").user, candidate=candidate,
                                  version=version)
    return interview, candidate


def test_introspecting_submission_raises_its_signal_with_file_and_line(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, candidate = _interview(db, make_account, published_version)
    starter = package_of(published_version).starter_files["model.py"]
    add_attempt(db=db, interview=interview, user=candidate, version=published_version,  # type: ignore[arg-type]
                files={"model.py": starter + INTROSPECTING})
    signal = _signals(db, interview)["grader_introspection"]
    assert signal.raised
    kinds = {(e.file, e.code) for e in signal.evidence}
    assert ("model.py", "frame = sys._getframe(1)") in kinds
    assert ("model.py", "F.cross_entropy = lambda *args, **kwargs: 0.0") in kinds
    assert all(e.line for e in signal.evidence)


def test_untouched_starter_raises_nothing_about_code(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, candidate = _interview(db, make_account, published_version)
    add_attempt(db=db, interview=interview, user=candidate, version=published_version)  # type: ignore[arg-type]
    signals = _signals(db, interview)
    assert not signals["grader_introspection"].raised
    assert not signals["similar_to_solution"].raised
    assert not signals["similar_to_candidate"].raised
    assert not signals["large_paste"].raised and not signals["focus_lost"].raised


def test_a_copy_of_the_solution_raises_the_similarity_signal(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, candidate = _interview(db, make_account, published_version)
    package = package_of(published_version)
    renamed = {name: text.replace("self", "me") for name, text in package.solution_files.items()}
    add_attempt(db=db, interview=interview, user=candidate, version=published_version,  # type: ignore[arg-type]
                files=renamed, fixed={b.id for b in package.bugs})
    signal = _signals(db, interview)["similar_to_solution"]
    assert signal.raised, signal
    assert "100%" in signal.summary


def test_own_code_shared_with_another_candidate_raises_the_candidate_signal(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    package = package_of(published_version)
    first, first_candidate = _interview(db, make_account, published_version)
    second, second_candidate = _interview(db, make_account, published_version)
    third, third_candidate = _interview(db, make_account, published_version)
    helper = package.starter_files["model.py"] + OWN_HELPER
    add_attempt(db=db, interview=first, user=first_candidate, version=published_version,  # type: ignore[arg-type]
                files={"model.py": helper})
    # The same code with other names and comments is still the same code.
    disguised = helper.replace("running_mean_of_losses", "smooth").replace("values", "xs")
    add_attempt(db=db, interview=second, user=second_candidate, version=published_version,  # type: ignore[arg-type]
                files={"model.py": disguised.replace('"""A helper nobody else would write the same way."""', "")})
    # A full solution is not own code: it matches nobody.
    add_attempt(db=db, interview=third, user=third_candidate, version=published_version,  # type: ignore[arg-type]
                files=dict(package.solution_files))
    signal = _signals(db, first)["similar_to_candidate"]
    assert signal.raised, signal
    assert any(f"interview {second.id}" in e.text for e in signal.evidence)  # type: ignore[attr-defined]
    assert not any(f"interview {third.id}" in e.text for e in signal.evidence)  # type: ignore[attr-defined]
    assert not _signals(db, third)["similar_to_candidate"].raised


def test_paste_and_focus_events_become_evidence_with_times(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, candidate = _interview(db, make_account, published_version)
    common = {"user_id": candidate.id, "scenario_version_id": published_version.id,  # type: ignore[attr-defined]
              "interview_id": interview.id, "scope": scope_for(interview.id)}  # type: ignore[attr-defined]
    db.add_all([
        WorkspaceEvent(**common, kind="paste", detail={"file": "model.py", "chars": 1800, "lines": 52}, at=utcnow()),
        *[WorkspaceEvent(**common, kind="focus_lost", detail={"seconds": 40.0},
                         at=utcnow() - timedelta(minutes=n)) for n in range(3)],
    ])
    db.commit()
    signals = _signals(db, interview)
    assert signals["large_paste"].raised
    assert "1,800 characters (52 lines) into model.py" in signals["large_paste"].evidence[0].text
    focus = signals["focus_lost"]
    assert focus.raised and "3 time(s), 120 s" in focus.summary


def test_scanner_and_tokens_tolerate_code_that_does_not_parse() -> None:
    broken = "def f(:\n    import gc\n    x = sys._getframe(\n"
    assert {f.kind for f in scan_file("model.py", broken)} >= {"gc", "frame_walking"}
    assert normalised_tokens("x = (1 +\n") != []
