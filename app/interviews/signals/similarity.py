"""Similarity of a submission's own code to other candidates' submissions.

Every candidate starts from the same starter, and every honest fix moves it towards the solution, so
neither whole-file similarity nor similarity to the solution says anything (no signal is raised from
closeness to the solution). What is compared is the part of each change that is neither the starter's
nor the solution's: two people who both fixed everything correctly do not match each other; identical
own code does. Only submissions of interviews the reader may read are compared, and only those are named.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt, AttemptKind
from app.interviews.access import visible_query
from app.interviews.models import Interview
from app.interviews.record import InterviewRecord
from app.interviews.signals.fingerprints import fingerprints, jaccard
from app.interviews.signals.model import Evidence, Signal
from app.users.models import User

CANDIDATE_THRESHOLD = 0.8
MIN_OWN_CHANGE = 8  # own (non-solution) fingerprints both sides need before a match means anything
MAX_OTHERS = 500


def _files(attempt: Attempt) -> dict[str, str]:
    return {k: str(v) for k, v in attempt.files.items()}


def _others(session: Session, record: InterviewRecord, candidate_id: int | None, viewer: User) -> list[Attempt]:
    """The latest submission of every other user on this scenario version, in interviews `viewer` may
    read (practice attempts and other interviewers' interviews are never compared)."""
    readable = visible_query(viewer).with_only_columns(Interview.id).order_by(None)
    rows = session.scalars(select(Attempt).where(
        Attempt.scenario_version_id == record.version.id, Attempt.kind == AttemptKind.submit.value,
        Attempt.user_id != (candidate_id or 0), Attempt.interview_id.in_(readable),
    ).order_by(Attempt.id.desc()).limit(MAX_OTHERS * 4)).all()
    latest: dict[int, Attempt] = {}
    for attempt in rows:
        latest.setdefault(attempt.user_id, attempt)
    return list(latest.values())[:MAX_OTHERS]


def candidates_signal(session: Session, record: InterviewRecord, latest: Attempt | None,
                      viewer: User | None = None) -> Signal:
    title = "Near-identical to another candidate"
    note = ("Compares only code that is neither the starter's nor the solution's fix, with submissions of "
            "interviews you may read; shared boilerplate from a common tutorial can still match.")
    if latest is None:
        return Signal(kind="similar_to_candidate", title=title, raised=False, summary="No code submitted yet.",
                      note=note)
    names = record.package.files
    known = fingerprints(dict(record.package.starter_files), names) | fingerprints(
        dict(record.package.solution_files), names)
    own = fingerprints(_files(latest), names) - known
    matches: list[tuple[float, Attempt, int, int]] = []
    if len(own) >= MIN_OWN_CHANGE and viewer is not None:
        for other in _others(session, record, latest.user_id, viewer):
            theirs = fingerprints(_files(other), names) - known
            if len(theirs) >= MIN_OWN_CHANGE:
                score = jaccard(own, theirs)
                if score >= CANDIDATE_THRESHOLD:
                    matches.append((score, other, len(own & theirs), len(own | theirs)))
    matches.sort(key=lambda m: -m[0])
    evidence = [Evidence(text=f"interview {other.interview_id}, another candidate's submission: {shared} of "
                              f"{union} own fingerprints shared ({score:.0%})")
                for score, other, shared, union in matches[:10]]
    if len(own) < MIN_OWN_CHANGE:
        summary = "The change is too close to the solution's fixes to compare between candidates."
    else:
        summary = (f"{len(matches)} other submission(s) share at least {CANDIDATE_THRESHOLD:.0%} of the "
                   "candidate's own code") if matches else "No other submission here shares the candidate's own code."
    return Signal(kind="similar_to_candidate", title=title, raised=bool(matches), summary=summary, note=note,
                  evidence=evidence)
