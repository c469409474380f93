"""Keystroke playback: what the player replays, from the recorded change sets and the interview's moments.

Steps are in time order, each a file's ChangeSet (applied in the browser by DojoEditor.applyChanges)
or its whole text (where the recording lost track, see recording.py). Markers put the candidate's
pastes, time away from the page, Runs and Submits with their verdicts, the interviewer's private notes
and messages at their moments; each Run and Submit carries its files for the diff view. Times are
milliseconds on the interview clock. An interview recorded before keystrokes were (or whose recording
was refused at its cap) still plays its draft snapshots (app/interviews/playback.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt, AttemptKind
from app.attempts.numbers import attempt_name
from app.attempts.points import points, points_text
from app.attempts.staff_verdict import staff_verdict
from app.core.db import as_utc, utcnow
from app.grading.result import GradeResult
from app.interviews.live import said
from app.interviews.live.models import KeystrokeBatch
from app.interviews.live.view import starter_files
from app.interviews.models import Interview
from app.interviews.state import ended_at
from app.workspace.models import WorkspaceEvent, scope_for

PASTE_EVENTS = ("input.paste", "input.drop")
GRADED = (AttemptKind.run.value, AttemptKind.submit.value)


class Marker(TypedDict):
    """A moment on the player's timeline: a paste, time away, a Run or Submit, a note, a message."""

    t: float  # ms from the start
    kind: str
    label: str


@dataclass
class PlaybackData:
    started_at: datetime | None
    duration_ms: int
    files: dict[str, str]  # where playback starts: the starter files
    steps: list[list[Any]] = field(default_factory=list)  # [t ms, file, "changes" | "text", payload, user event]
    markers: list[Marker] = field(default_factory=list)
    runs: list[dict[str, object]] = field(default_factory=list)  # {t, number, kind, status, score, files}

    def to_dict(self) -> dict[str, object]:
        return {"started_at": self.started_at.isoformat() if self.started_at else None,
                "duration_ms": self.duration_ms, "files": self.files, "steps": self.steps,
                "markers": self.markers, "runs": self.runs}


def _ms(start: datetime, moment: datetime) -> int:
    return max(0, int((as_utc(moment) - start).total_seconds() * 1000))


def playback_data(*, session: Session, interview: Interview) -> PlaybackData:
    start = as_utc(interview.started_at) if interview.started_at else None
    data = PlaybackData(started_at=start, duration_ms=0, files=starter_files(session, interview.scenario_version_id))
    if start is None:
        return data
    end = ended_at(interview) or utcnow()
    data.duration_ms = _ms(start, min(end, utcnow()))
    # One file's steps must replay in the order they were recorded (each fits the text the one before
    # left); times derived from the browser's ages can overlap a little between two saves, so a file's
    # times are kept from going backwards, and the stable sort then keeps each file's order.
    latest: dict[str, int] = {}
    for batch in session.scalars(select(KeystrokeBatch).where(KeystrokeBatch.interview_id == interview.id)
                                 .order_by(KeystrokeBatch.id)):
        at = _ms(start, batch.at)
        if batch.text is not None:
            latest[batch.file] = t = max(at, latest.get(batch.file, 0))
            data.steps.append([t, batch.file, "text", batch.text, ""])
            continue
        for offset, changes, event in batch.changes:
            latest[batch.file] = t = max(at + int(offset), latest.get(batch.file, 0))
            data.steps.append([t, batch.file, "changes", changes, event])
            if event in PASTE_EVENTS:
                data.markers.append({"t": t, "kind": "paste", "label": f"Paste in {batch.file}"})
    data.steps.sort(key=lambda step: step[0])
    for event in session.scalars(select(WorkspaceEvent).where(
            WorkspaceEvent.interview_id == interview.id, WorkspaceEvent.scope == scope_for(interview.id),
            WorkspaceEvent.kind.in_(("paste", "focus_lost"))).order_by(WorkspaceEvent.at)):
        detail = dict(event.detail or {})
        if event.kind == "focus_lost":
            away = float(detail.get("seconds", 0) or 0)
            data.markers.append({"t": max(0, _ms(start, event.at) - int(away * 1000)), "kind": "focus_lost",
                                 "label": f"Left the page for {away:.0f} s"})
        else:
            data.markers.append({"t": _ms(start, event.at), "kind": "paste",
                                 "label": f"Large paste: {detail.get('chars')} characters in {detail.get('file')}"})
    # Numbered over every kind, scratch runs too, as the candidate's History and the review number them.
    ids = session.scalars(select(Attempt.id).where(Attempt.interview_id == interview.id).order_by(Attempt.id)).all()
    numbered = {attempt_id: n for n, attempt_id in enumerate(ids, start=1)}
    attempts = session.scalars(select(Attempt).where(Attempt.interview_id == interview.id, Attempt.kind.in_(GRADED))
                               .order_by(Attempt.created_at, Attempt.id)).all()
    for attempt in attempts:
        t = _ms(start, attempt.created_at)
        number = numbered[attempt.id]
        verdict = staff_verdict(attempt, GradeResult.from_stored(attempt.result)).text
        if attempt.kind == AttemptKind.submit.value and attempt.score is not None:
            verdict += f", {points_text(points(attempt.score))} points"
        label = f"{attempt_name(attempt.kind, number)}: {verdict}"
        data.runs.append({"t": t, "number": number, "kind": attempt.kind, "status": attempt.status,
                          "score": attempt.score, "label": label,
                          "files": {k: str(v) for k, v in attempt.files.items()}})
        data.markers.append({"t": t, "kind": attempt.kind, "label": label})
    for note in said.notes_of(session=session, interview_id=interview.id):
        data.markers.append({"t": note.seconds * 1000, "kind": "note", "label": f"Note ({note.author}): {note.text}"})
    for message in said.messages_of(session=session, interview_id=interview.id):
        data.markers.append({"t": message.seconds * 1000, "kind": "message", "label": f"Message: {message.text}"})
    data.markers.sort(key=lambda marker: marker["t"])
    last = max([data.duration_ms, *(s[0] for s in data.steps), *(m["t"] for m in data.markers)])
    data.duration_ms = last
    return data
