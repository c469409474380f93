"""What the candidate's editor reports with each save: keystrokes for playback, the text and presence for followers.

The page sends, with an autosave (or a Run/Submit), a `LiveReport`: the file it shows, the cursor line,
focus and activity, and per file the CodeMirror change sets typed since its last report, each with its
age in milliseconds (so the server's clock stamps them, whatever the browser's clock says).

`record_save` runs in the save's transaction, after the draft changed:
- a `draft` event per changed file (its whole text, the cursor line) for followers;
- a `presence` event when the report says where the candidate is;
- a keystroke batch per changed file. The changes are checked on the server: applied to the text
  the recording last ended with, they must give the saved text. If they do not (a reset, a restore, a
  report that never arrived, another tab), the batch keeps the file's whole text instead, so playback
  never replays a change onto the wrong text. A batch that would pass KEYSTROKE_BYTES_PER_INTERVIEW or
  KEYSTROKE_BYTES_PER_USER is refused whole: nothing of it is written (the draft is saved as always, its
  snapshots keep the text for playback).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.core.settings import get_settings
from app.interviews.live import log
from app.interviews.live.changes import ChangesMisfit, apply_changes
from app.interviews.live.models import KeystrokeBatch, LiveEvent
from app.interviews.models import Interview

MAX_CHANGES_PER_FILE = 5000
MAX_AGE_MS = 10 * 60 * 1000


class LiveReport(BaseModel):
    """What the workspace page reports with a save (or on its own, for presence)."""

    model_config = ConfigDict(extra="forbid")

    file: str | None = Field(default=None, max_length=80)
    cursor_line: int | None = Field(default=None, ge=1, le=1_000_000)
    focused: bool | None = None
    active: bool | None = None
    # file -> [[age in ms when sent, ChangeSet JSON, user event], ...]
    changes: dict[str, list[list[Any]]] = Field(default_factory=dict, max_length=16)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _entries(raw: list[list[Any]]) -> list[tuple[int, Any, str]] | None:
    """(age ms, change set, user event) per entry, or None when the report is malformed or too long."""
    if len(raw) > MAX_CHANGES_PER_FILE:
        return None
    out = []
    for entry in raw:
        if not isinstance(entry, list) or len(entry) != 3:
            return None
        age, changes, user_event = entry
        if isinstance(age, bool) or not isinstance(age, int | float) or not 0 <= age <= MAX_AGE_MS:
            return None
        out.append((int(age), changes, str(user_event)[:40] if isinstance(user_event, str) else ""))
    return out


def _recorded_bytes(session: Session, column: Any, value: int) -> int:
    total = select(func.coalesce(func.sum(KeystrokeBatch.size_bytes), 0)).where(column == value)
    return int(session.scalar(total) or 0)


def _last_hash(session: Session, interview_id: int, name: str) -> str | None:
    return session.scalar(select(KeystrokeBatch.after_hash).where(
        KeystrokeBatch.interview_id == interview_id, KeystrokeBatch.file == name)
        .order_by(KeystrokeBatch.id.desc()).limit(1))


def record_batch(*, session: Session, interview: Interview, user_id: int, name: str, before: str, after: str,
                 starter: str, raw: list[list[Any]] | None) -> str:
    """Store one file's keystrokes (or its whole text); returns "changes", "text" or "refused"."""
    head_hash = _last_hash(session, interview.id, name) or text_hash(starter)
    entries = _entries(raw) if raw else None
    now = utcnow()
    changes: list[Any] | None = None
    oldest = 0
    if entries and head_hash == text_hash(before):
        try:
            text = before
            for _age, change_set, _event in entries:
                text = apply_changes(text, change_set)
            if text == after:
                oldest = max(age for age, _c, _e in entries)
                changes = [[oldest - age, change_set, event] for age, change_set, event in entries]
        except ChangesMisfit:
            changes = None
    size = len(orjson.dumps(changes)) if changes is not None else len(after.encode("utf-8", "surrogatepass"))
    settings = get_settings()
    per_interview = _recorded_bytes(session, KeystrokeBatch.interview_id, interview.id)
    if (per_interview + size > settings.keystroke_bytes_per_interview
            or _recorded_bytes(session, KeystrokeBatch.user_id, user_id) + size > settings.keystroke_bytes_per_user):
        return "refused"
    session.add(KeystrokeBatch(
        interview_id=interview.id, user_id=user_id, file=name, at=now - timedelta(milliseconds=oldest),
        changes=changes or [], text=None if changes is not None else after, after_hash=text_hash(after),
        size_bytes=size))
    session.flush()
    return "changes" if changes is not None else "text"


def _lf(files: Mapping[str, str]) -> dict[str, str]:
    return {name: text.replace("\r\n", "\n") for name, text in files.items()}


def record_save(*, session: Session, interview: Interview, user_id: int, before: Mapping[str, str],
                after: Mapping[str, str], starter: Mapping[str, str], report: LiveReport | None) -> dict[str, str]:
    """After a save changed the draft of an interview (flushed): keystrokes, draft and presence events.

    Returns how each changed file was recorded ("changes", "text" or "refused").
    """
    # A form post (Run, Submit) sends CRLF line breaks where the editor has LF: the recording keeps LF,
    # as the editor's change sets count it.
    before, after, starter = _lf(before), _lf(after), _lf(starter)
    changed = [name for name in sorted(after) if after[name] != before.get(name)]
    outcome: dict[str, str] = {}
    if not changed and report is None:
        return outcome
    log.lock_interview(session, interview.id)
    seconds = log.clock_seconds(interview)
    for name in changed:
        raw = report.changes.get(name) if report else None
        outcome[name] = record_batch(session=session, interview=interview, user_id=user_id, name=name,
                                     before=before.get(name, ""), after=after[name], starter=starter.get(name, ""),
                                     raw=raw)
        cursor = report.cursor_line if report and report.file == name else None
        log.append(session, interview.id, "draft", {"file": name, "text": after[name], "cursor_line": cursor,
                                                    "seconds": seconds}, locked=True)
    if report is not None and (report.file is not None or report.focused is not None or report.active is not None):
        record_presence(session=session, interview=interview, report=report, seconds=seconds, locked=True)
    return outcome


def record_presence(*, session: Session, interview: Interview, report: LiveReport, seconds: int | None = None,
                    locked: bool = False) -> None:
    """Where the candidate is: the file they show, focus and activity (flushed), when that changed.

    Every save reports it; only a change is an event (the cursor line rides on the draft events)."""
    last = session.scalar(select(LiveEvent.data).where(LiveEvent.interview_id == interview.id,
                                                       LiveEvent.kind == "presence")
                          .order_by(LiveEvent.id.desc()).limit(1))
    now = {"file": report.file, "active": report.active, "focused": report.focused}
    if last is not None and all(last.get(key) == value for key, value in now.items()):
        return
    log.append(session, interview.id, "presence", {
        "file": report.file, "active": report.active, "focused": report.focused, "cursor_line": report.cursor_line,
        "seconds": log.clock_seconds(interview) if seconds is None else seconds}, locked=locked)
