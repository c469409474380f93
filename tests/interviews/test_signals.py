"""Integrity signals: evidence from stored attempts and editor events, computed on the server."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy.orm import Session
from web.support import Account

from app.core.db import utcnow
from app.engine.package import ScenarioPackage
from app.interviews.record import build_record
from app.interviews.signals.detect import signals_for
from app.interviews.signals.fingerprints import normalised_tokens
from app.interviews.signals.introspection import scan_file
from app.interviews.signals.model import Signal
from app.scenarios.models import ScenarioVersion
from app.users.models import User
from app.workspace.events import paste_pieces
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


def _signals(db: Session, interview: object, viewer: object = None) -> dict[str, Signal]:
    record = build_record(session=db, interview=interview, with_details=False)  # type: ignore[arg-type]
    return {s.kind: s for s in signals_for(session=db, record=record, viewer=viewer)}  # type: ignore[arg-type]


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
    assert not signals["solution_only_text"].raised
    assert not signals["similar_to_candidate"].raised
    assert not signals["large_paste"].raised and not signals["focus_lost"].raised


def _typed_fix(package: ScenarioPackage, bug_ids: set[str] | None = None) -> dict[str, str]:
    """What a candidate typing the fix by hand ends with: each of the starter's changed lines replaced by
    the solution's code, without the solution's own comments (nobody retypes the author's remarks).
    `bug_ids`: only these bugs fixed (each bug's edits reverted), else every bug (a line diff)."""
    def typed(text: str, starter: str) -> str:
        out = []
        for line in text.split("\n"):
            code, _, comment = line.partition("#")
            if comment and comment.strip() not in starter:
                if not code.strip():
                    continue  # a comment line of the solution's
                line = code.rstrip()
            out.append(line)
        return "\n".join(out)

    files = dict(package.starter_files)
    if bug_ids is not None:
        for bug in reversed(package.bugs):
            if bug.id in bug_ids:
                for edit in reversed(bug.edits):
                    files[edit.file] = files[edit.file].replace(edit.new, typed(edit.old, files[edit.file]), 1)
        return files
    for name in package.files:
        starter, solution = package.starter_files[name].splitlines(), package.solution_files[name].splitlines()
        lines: list[str] = []
        for op, a1, a2, b1, b2 in difflib.SequenceMatcher(a=starter, b=solution, autojunk=False).get_opcodes():
            lines += starter[a1:a2] if op == "equal" else [
                line for line in typed("\n".join(solution[b1:b2]), package.starter_files[name]).split("\n")]
        files[name] = "\n".join(lines) + "\n"
    return files


def test_twenty_honest_typed_fixes_raise_no_flag_and_a_pasted_solution_is_flagged(
    db: Session, make_account: Callable[..., Account]
) -> None:
    from app.scenarios.service import sync_builtin_scenarios

    versions = sync_builtin_scenarios(session=db)
    db.commit()
    interviewer = make_account("interviewer").user
    fixes: list[tuple[ScenarioVersion, dict[str, str]]] = [(v, _typed_fix(package_of(v))) for v in versions]
    # then single-bug fixes where each bug's edits revert on their own
    for version in versions:
        package = package_of(version)
        if len(fixes) < 20 and all(e.new and package.starter_files[e.file].count(e.new) == 1
                                   for b in package.bugs for e in b.edits):
            fixes.append((version, _typed_fix(package, {package.bugs[0].id})))
    assert len(fixes) >= 20  # one whole fix per built-in, topped up with single-bug fixes
    for version, files in fixes:
        package = package_of(version)
        assert files != package.starter_files
        candidate = make_account("candidate").user
        interview = started_interview(db=db, interviewer=interviewer, candidate=candidate, version=version)
        add_attempt(db=db, interview=interview, user=candidate, version=version, files=files,  # type: ignore[arg-type]
                    fixed={b.id for b in package.bugs})
        raised = [s.kind for s in _signals(db, interview, interviewer).values() if s.raised]
        assert raised == [], (package.slug, raised)

    # A pasted copy of the solution file: the paste carries the solution's own comments and lines.
    version = versions[0]
    package = package_of(version)
    candidate = make_account("candidate").user
    interview = started_interview(db=db, interviewer=interviewer, candidate=candidate, version=version)
    name = next(f for f in package.files if package.solution_files[f] != package.starter_files[f])  # a fixed file
    db.add(WorkspaceEvent(user_id=candidate.id, scenario_version_id=version.id,  # type: ignore[attr-defined]
                          interview_id=interview.id, scope=scope_for(interview.id), kind="paste",  # type: ignore[attr-defined]
                          detail={"file": name, "chars": len(package.solution_files[name]), "lines": 100,
                                  "pieces": " ".join(paste_pieces(package.solution_files[name]))}, at=utcnow()))
    db.commit()
    add_attempt(db=db, interview=interview, user=candidate, version=version,  # type: ignore[arg-type]
                files=dict(package.solution_files), fixed={b.id for b in package.bugs})
    signal = _signals(db, interview, interviewer)["solution_only_text"]
    assert signal.raised, signal
    assert any(e.text.startswith(f"a paste into {name} carried text only the solution has") for e in signal.evidence)


def test_speed_is_a_fact_never_a_flag(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, candidate = _interview(db, make_account, published_version)
    package = package_of(published_version)
    add_attempt(db=db, interview=interview, user=candidate, version=published_version,  # type: ignore[arg-type]
                files=_typed_fix(package), fixed={b.id for b in package.bugs})
    signal = _signals(db, interview)["time_to_first_run"]
    assert signal.fact and not signal.raised
    assert "every bug fixed at" in signal.summary


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
    admin = make_account("admin").user
    signal = _signals(db, first, admin)["similar_to_candidate"]
    assert signal.raised, signal
    assert any(f"interview {second.id}" in e.text for e in signal.evidence)  # type: ignore[attr-defined]
    assert not any(f"interview {third.id}" in e.text for e in signal.evidence)  # type: ignore[attr-defined]
    assert not _signals(db, third, admin)["similar_to_candidate"].raised
    # first's interviewer may not read second's interview (another interviewer made it): nothing is
    # compared with it, and nothing of it is named.
    owner = db.get(User, first.interviewer_id)  # type: ignore[attr-defined]
    hidden = _signals(db, first, owner)["similar_to_candidate"]
    assert not hidden.raised and hidden.evidence == []
    # practice submissions are never compared
    add_attempt(db=db, interview=None, user=third_candidate, version=published_version,  # type: ignore[arg-type]
                files={"model.py": helper})
    assert not any("practice" in e.text for e in _signals(db, first, admin)["similar_to_candidate"].evidence)


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
