"""Draft snapshots for playback, with bounded storage: per workspace in time, per user in rows and bytes.

Playback needs the code over time, not every keystroke. So a snapshot is recorded only when the text
changed since the newest one, and at most one row per DRAFT_SNAPSHOT_INTERVAL_SECONDS per draft: a
change within that window rewrites the window's row, so the newest snapshot always holds the latest
text (what was run or submitted) without adding rows. Every path that changes a draft (autosave,
the form's Save, Run/Submit, restore, reset) goes through `record`.

Per user, DRAFT_SNAPSHOTS_PER_USER rows and DRAFT_SNAPSHOT_BYTES_PER_USER bytes at most. Past either,
the user's snapshots are thinned down to three quarters of both limits: every other one, oldest first,
never the first or last of a draft. Playback keeps its shape (where each draft began and ended, frames
spread over the whole time), losing detail in the oldest stretch first; a thinning pass happens once
per quarter of the cap, not on every write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from app.core.db import as_utc, utcnow
from app.core.settings import get_settings
from app.workspace.models import Draft, DraftSnapshot

# Thinning goes below the cap by a margin, so a user at the cap does not pay a pass on every write.
THIN_TO = 0.75


@dataclass(frozen=True)
class SnapshotUsage:
    """One user's snapshot rows and their bytes."""

    rows: int
    size_bytes: int


def text_bytes(files: Mapping[str, object], notes: Mapping[str, object]) -> int:
    """The UTF-8 bytes of the names and texts of a draft's files and notes."""
    return sum(len(str(key).encode("utf-8", "replace")) + len(str(value).encode("utf-8", "replace"))
               for part in (files, notes) for key, value in part.items())


def record(*, session: Session, draft: Draft) -> None:
    """Keep the draft's current text in its snapshots (flushed): a new row, the window's row updated, or nothing."""
    newest = session.execute(
        select(DraftSnapshot.id, DraftSnapshot.revision, DraftSnapshot.taken_at)
        .where(DraftSnapshot.draft_id == draft.id)
        .order_by(DraftSnapshot.taken_at.desc(), DraftSnapshot.id.desc()).limit(1)).first()
    if newest is not None and newest.revision == draft.revision:
        return  # the text has not changed since the newest snapshot
    content = {"revision": draft.revision, "files": dict(draft.files), "notes": dict(draft.notes),
               "size_bytes": text_bytes(draft.files, draft.notes)}
    interval = timedelta(seconds=get_settings().draft_snapshot_interval_seconds)
    if newest is not None and utcnow() - as_utc(newest.taken_at) < interval:
        session.execute(update(DraftSnapshot).where(DraftSnapshot.id == newest.id).values(**content)
                        .execution_options(synchronize_session=False))
    else:
        session.add(DraftSnapshot(draft_id=draft.id, taken_at=utcnow(), **content))
    session.flush()
    keep_within_cap(session=session, user_id=draft.user_id)


def usage(*, session: Session, user_id: int) -> SnapshotUsage:
    rows, size = session.execute(
        select(func.count(DraftSnapshot.id), func.coalesce(func.sum(DraftSnapshot.size_bytes), 0))
        .join(Draft, Draft.id == DraftSnapshot.draft_id).where(Draft.user_id == user_id)).one()
    return SnapshotUsage(rows=int(rows), size_bytes=int(size))


def keep_within_cap(*, session: Session, user_id: int) -> int:
    """Thin the user's snapshots once past either limit; returns how many rows were deleted."""
    settings = get_settings()
    max_rows, max_bytes = settings.draft_snapshots_per_user, settings.draft_snapshot_bytes_per_user
    now = usage(session=session, user_id=user_id)
    if now.rows <= max_rows and now.size_bytes <= max_bytes:
        return 0
    rows = session.execute(
        select(DraftSnapshot.id, DraftSnapshot.draft_id, DraftSnapshot.size_bytes)
        .join(Draft, Draft.id == DraftSnapshot.draft_id).where(Draft.user_id == user_id)
        .order_by(DraftSnapshot.taken_at, DraftSnapshot.id)).all()
    ends = _first_and_last_of_each_draft(rows)
    target_rows, target_bytes = int(max_rows * THIN_TO), int(max_bytes * THIN_TO)
    count, size = now.rows, now.size_bytes
    doomed: list[int] = []
    candidates = [row for row in rows if row.id not in ends]
    while candidates and (count > target_rows or size > target_bytes):
        survivors = []
        for n, row in enumerate(candidates):  # every other one, oldest first
            if n % 2 == 0 and (count > target_rows or size > target_bytes):
                doomed.append(row.id)
                count, size = count - 1, size - row.size_bytes
            else:
                survivors.append(row)
        candidates = survivors
    for start in range(0, len(doomed), 500):  # bounded IN lists
        session.execute(delete(DraftSnapshot).where(DraftSnapshot.id.in_(doomed[start:start + 500]))
                        .execution_options(synchronize_session=False))
    session.flush()
    return len(doomed)


def _first_and_last_of_each_draft(rows: Sequence[Any]) -> set[int]:
    """Ids of each draft's first and last snapshot (`rows` in time order): where its playback begins and ends."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for row in rows:
        first.setdefault(row.draft_id, row.id)
        last[row.draft_id] = row.id
    return {*first.values(), *last.values()}
