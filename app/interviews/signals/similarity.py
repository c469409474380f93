"""Similarity of a submission to the scenario's solution and to other candidates' submissions.

Every candidate starts from the same starter, which differs from the solution only where bugs were
planted, so whole-file similarity says nothing. What is compared is the change: the fingerprints a
submission has that the starter does not.
- Solution: the candidate's change against the solution's change (the fixes). A complete, minimal
  fix matches closely too, so the note says to read it together with pastes and playback.
- Other candidates: only the parts of each change that are not the solution's, so two people who
  both fixed everything correctly do not match each other; identical own code does.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt, AttemptKind
from app.interviews.record import InterviewRecord
from app.interviews.signals.fingerprints import fingerprints, jaccard
from app.interviews.signals.model import Evidence, Signal

SOLUTION_THRESHOLD = 0.9
CANDIDATE_THRESHOLD = 0.8
MIN_CHANGE = 3  # fingerprints: below this a change is too small to compare
MIN_OWN_CHANGE = 8  # own (non-solution) fingerprints both sides need before a match means anything
MAX_OTHERS = 500


def _files(attempt: Attempt) -> dict[str, str]:
    return {k: str(v) for k, v in attempt.files.items()}


def solution_signal(record: InterviewRecord, latest: Attempt | None) -> Signal:
    title = "Near-identical to the solution"
    note = ("A complete, minimal fix also matches the solution's fixes closely; read it together with the paste "
            "events and the playback.")
    if latest is None:
        return Signal(kind="similar_to_solution", title=title, raised=False, summary="No code submitted yet.",
                      note=note)
    names = record.package.files
    starter = fingerprints(dict(record.package.starter_files), names)
    solution = fingerprints(dict(record.package.solution_files), names)
    files = _files(latest)
    change = fingerprints(files, names) - starter
    fixes = solution - starter
    score = jaccard(change, fixes)
    raised = len(change) >= MIN_CHANGE and score >= SOLUTION_THRESHOLD
    evidence = [Evidence(text=f"{len(change & fixes)} of {len(change | fixes)} fingerprints of the change from the "
                              f"starter match the solution's ({score:.0%})")]
    identical = [n for n in names if n in files and files[n] == record.package.solution_files.get(n)]
    if identical:
        evidence.append(Evidence(text="byte-identical to the solution, comments and spacing included: "
                                      + ", ".join(identical)))
    summary = f"The change from the starter matches the solution's at {score:.0%}" if change else "No change yet."
    return Signal(kind="similar_to_solution", title=title, raised=raised, summary=summary, note=note,
                  evidence=evidence)


def _others(session: Session, record: InterviewRecord, candidate_id: int | None) -> list[Attempt]:
    """The latest submission of every other user on this scenario version."""
    rows = session.scalars(select(Attempt).where(
        Attempt.scenario_version_id == record.version.id, Attempt.kind == AttemptKind.submit.value,
        Attempt.user_id != (candidate_id or 0),
    ).order_by(Attempt.id.desc()).limit(MAX_OTHERS * 4)).all()
    latest: dict[int, Attempt] = {}
    for attempt in rows:
        latest.setdefault(attempt.user_id, attempt)
    return list(latest.values())[:MAX_OTHERS]


def candidates_signal(session: Session, record: InterviewRecord, latest: Attempt | None) -> Signal:
    title = "Near-identical to another candidate"
    note = ("Compares only code that is not the solution's fix; shared boilerplate from a common tutorial "
            "can still match.")
    if latest is None:
        return Signal(kind="similar_to_candidate", title=title, raised=False, summary="No code submitted yet.",
                      note=note)
    names = record.package.files
    known = fingerprints(dict(record.package.starter_files), names) | fingerprints(
        dict(record.package.solution_files), names)
    own = fingerprints(_files(latest), names) - known
    matches: list[tuple[float, Attempt, int, int]] = []
    if len(own) >= MIN_OWN_CHANGE:
        for other in _others(session, record, latest.user_id):
            theirs = fingerprints(_files(other), names) - known
            if len(theirs) >= MIN_OWN_CHANGE:
                score = jaccard(own, theirs)
                if score >= CANDIDATE_THRESHOLD:
                    matches.append((score, other, len(own & theirs), len(own | theirs)))
    matches.sort(key=lambda m: -m[0])
    evidence = [Evidence(text=f"attempt {other.id} of another candidate"
                              + (f" (interview {other.interview_id})" if other.interview_id else " (practice)")
                              + f": {shared} of {union} own fingerprints shared ({score:.0%})")
                for score, other, shared, union in matches[:10]]
    if len(own) < MIN_OWN_CHANGE:
        summary = "The change is too close to the solution's fixes to compare between candidates."
    else:
        summary = (f"{len(matches)} other submission(s) share at least {CANDIDATE_THRESHOLD:.0%} of the "
                   "candidate's own code") if matches else "No other submission here shares the candidate's own code."
    return Signal(kind="similar_to_candidate", title=title, raised=bool(matches), summary=summary, note=note,
                  evidence=evidence)
