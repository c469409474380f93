"""Drafts: the latest text of a candidate's files and notes, autosaved, with snapshots for playback.

Every change is recorded in the draft's snapshots, which are bounded (app/workspace/snapshots.py).

Every save names the revision it was based on. A save based on an older revision than the stored
one comes from a tab that is behind: it is refused (nothing is overwritten) and the caller shows
that tab the newer draft, unless the candidate chose to overwrite it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.core.errors import DojoError
from app.core.settings import get_settings
from app.engine.scratch import FILE_NAME as SCRATCH_FILE
from app.engine.scratch import STARTER as SCRATCH_STARTER
from app.workspace import snapshots
from app.workspace.context import Workspace
from app.workspace.models import Draft


class DraftRejected(DojoError):
    status_code = 422


@dataclass(frozen=True)
class SaveOutcome:
    draft: Draft
    saved: bool  # False: the save was based on an older revision (another tab or device is ahead)


@dataclass(frozen=True)
class DraftText:
    """A draft's text as it would be with a posted change, before anything is stored."""

    files: dict[str, str]
    notes: dict[str, str]
    revision: int  # the stored draft's revision (0 before the first save)


def editable_files(ws: Workspace) -> tuple[str, ...]:
    """The scenario's files plus the scratch console's script."""
    return (*ws.package.editable, SCRATCH_FILE)


def starter_files(ws: Workspace) -> dict[str, str]:
    return {**ws.package.starter_files, SCRATCH_FILE: SCRATCH_STARTER}


def find_draft(*, session: Session, ws: Workspace) -> Draft | None:
    return session.scalar(select(Draft).where(
        Draft.user_id == ws.user.id, Draft.scenario_version_id == ws.version.id, Draft.scope == ws.scope))


def load_draft(*, session: Session, ws: Workspace) -> Draft:
    """The user's draft, started from the starter files on the first visit (flushed, not committed)."""
    draft = find_draft(session=session, ws=ws)
    if draft is None:
        draft = Draft(user_id=ws.user.id, scenario_version_id=ws.version.id, interview_id=ws.interview_id,
                      scope=ws.scope, files=starter_files(ws), notes={}, revision=0)
        session.add(draft)
        session.flush()
    return draft


def check_content(ws: Workspace, files: dict[str, str], notes: dict[str, str]) -> None:
    """Known file names and question ids, sizes within the limits, valid UTF-8 (lone surrogates refused)."""
    settings = get_settings()
    allowed = editable_files(ws)
    for name, text in files.items():
        if name not in allowed:
            raise DraftRejected(f"Unknown file {name[:80]!r}: this challenge's files are {', '.join(allowed)}.")
        size = _utf8_size(text, f"File {name!r}")
        if size > settings.max_file_bytes:
            raise DraftRejected(f"{name} is {size} bytes; the limit is {settings.max_file_bytes} bytes. "
                                "Nothing was saved; shorten the file and try again.", 413)
    for question_id, text in notes.items():
        if question_id not in ws.package.question_ids:
            raise DraftRejected(f"Unknown question {question_id[:80]!r}.")
        _utf8_size(text, "A note")
        if len(text) > settings.max_form_field_chars:
            raise DraftRejected(f"A note is longer than {settings.max_form_field_chars} characters.")


def _utf8_size(text: str, what: str) -> int:
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise DraftRejected(f"{what} is not valid UTF-8 text.") from None


def save_draft(*, session: Session, ws: Workspace, files: dict[str, str], notes: dict[str, str],
               base_revision: int | None, force: bool = False) -> SaveOutcome:
    """Store the files and notes given (others keep their text) unless the draft moved on meanwhile."""
    ws.refuse_after_deadline()
    check_content(ws, files, notes)
    draft = load_draft(session=session, ws=ws)
    if not force and base_revision is not None and base_revision != draft.revision:
        return SaveOutcome(draft=draft, saved=False)
    changed = any(draft.files.get(k) != v for k, v in files.items()) or any(
        draft.notes.get(k) != v for k, v in notes.items())
    if not changed:
        return SaveOutcome(draft=draft, saved=True)
    draft.files = {**draft.files, **files}
    draft.notes = {**draft.notes, **notes}
    draft.revision += 1
    draft.updated_at = utcnow()
    session.flush()
    snapshots.record(session=session, draft=draft)
    return SaveOutcome(draft=draft, saved=True)


def with_posted(*, session: Session, ws: Workspace, files: dict[str, str], notes: dict[str, str]) -> DraftText:
    """The draft's text with the posted files and notes, checked like a save but not stored (a read only).

    Run and Submit check everything first and store the draft only once the attempt is accepted, so a
    refused request writes nothing.
    """
    ws.refuse_after_deadline()
    check_content(ws, files, notes)
    stored = find_draft(session=session, ws=ws)
    base_files, base_notes = (stored.files, stored.notes) if stored else (starter_files(ws), {})
    return DraftText(files={**base_files, **files}, notes={**base_notes, **notes},
                     revision=stored.revision if stored else 0)


def reset_file(*, session: Session, ws: Workspace, name: str) -> Draft:
    """Put one file back to the starter's text (the snapshots keep what it was, within their limits)."""
    if name not in editable_files(ws):
        raise DraftRejected(f"Unknown file {name[:80]!r}.")
    outcome = save_draft(session=session, ws=ws, files={name: starter_files(ws)[name]}, notes={},
                         base_revision=None, force=True)
    return outcome.draft
