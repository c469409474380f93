"""Playback: the candidate's autosaved draft snapshots in time order, with the attempts marked on them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.db import as_utc
from app.interviews.models import Interview
from app.interviews.record import AttemptEntry
from app.workspace.models import Draft, DraftSnapshot, scope_for

# Snapshots are taken when an attempt is created; its row may be written a moment later.
ATTEMPT_TOLERANCE = timedelta(seconds=5)


@dataclass(frozen=True)
class Frame:
    index: int
    snapshot_id: int
    taken_at: datetime
    offset: timedelta | None


@dataclass(frozen=True)
class Marker:
    frame: int
    attempt_number: int
    kind: str
    name: str  # "Run 3", as History and the review name it
    verdict: str  # the review's wording: a Run's public checks, its hidden ones beside (StaffVerdict.text)


@dataclass
class Playback:
    frames: list[Frame]
    markers: list[Marker]
    index: int = 0
    files: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def current(self) -> Frame | None:
        return self.frames[self.index] if self.frames else None

    def markers_at(self, index: int) -> list[Marker]:
        return [m for m in self.markers if m.frame == index]


def build_playback(
    *, session: Session, interview: Interview, attempts: list[AttemptEntry], at: int | None,
) -> Playback:
    """Frames of the interview's drafts, the attempts placed on them, and frame `at` loaded."""
    start = as_utc(interview.started_at) if interview.started_at else None
    rows = session.execute(
        select(DraftSnapshot.id, DraftSnapshot.taken_at).join(Draft, Draft.id == DraftSnapshot.draft_id)
        .where(Draft.scope == scope_for(interview.id), Draft.scenario_version_id == interview.scenario_version_id)
        .order_by(DraftSnapshot.taken_at, DraftSnapshot.id)
    ).all()
    frames = [Frame(index=n, snapshot_id=row.id, taken_at=as_utc(row.taken_at),
                    offset=as_utc(row.taken_at) - start if start else None) for n, row in enumerate(rows)]
    markers = []
    for entry in attempts:
        moment = as_utc(entry.attempt.created_at) + ATTEMPT_TOLERANCE
        before = [f.index for f in frames if f.taken_at <= moment]
        if before:
            markers.append(Marker(frame=before[-1], attempt_number=entry.number, kind=entry.attempt.kind,
                                  name=entry.name, verdict=entry.verdict.text))
    playback = Playback(frames=frames, markers=markers)
    if frames:
        playback.index = len(frames) - 1 if at is None else max(0, min(at, len(frames) - 1))
        snapshot = session.get(DraftSnapshot, frames[playback.index].snapshot_id)
        if snapshot is not None:
            playback.files = {k: str(v) for k, v in snapshot.files.items()}
            playback.notes = {k: str(v) for k, v in snapshot.notes.items()}
    return playback
