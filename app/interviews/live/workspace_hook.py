"""Where the workspace's saves meet the live interview: the text before a save, and what to record after it.

The workspace's autosave and Run/Submit call these around `drafts.save_draft`; outside an interview
they do nothing.
"""

from __future__ import annotations

import orjson
from pydantic import ValidationError
from sqlalchemy.orm import Session

from app.interviews.live import log, said
from app.interviews.live.recording import LiveReport, record_save
from app.workspace import drafts
from app.workspace.context import Workspace
from app.workspace.models import Draft


def files_before(session: Session, ws: Workspace) -> dict[str, str] | None:
    """The draft's files before a save (None outside an interview)."""
    if ws.interview is None:
        return None
    draft = drafts.find_draft(session=session, ws=ws)
    return {k: str(v) for k, v in (draft.files if draft else drafts.starter_files(ws)).items()}


def after_save(session: Session, ws: Workspace, before: dict[str, str] | None, draft: Draft | None,
               report: LiveReport | None) -> None:
    """Record the keystrokes and publish the text and presence of a save that was taken (flushed)."""
    if ws.interview is None or before is None or draft is None:
        return
    record_save(session=session, interview=ws.interview, user_id=ws.user.id, before=before,
                after={k: str(v) for k, v in draft.files.items()}, starter=drafts.starter_files(ws), report=report)


def report_from_form(value: object) -> LiveReport | None:
    """The `live` field of a Run/Submit form (JSON), or None when absent or malformed (the save goes on)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return LiveReport.model_validate(orjson.loads(value))
    except (orjson.JSONDecodeError, ValidationError):
        return None


def messages_for(session: Session, ws: Workspace) -> tuple[said.Said, ...]:
    """The interviewer's messages to this candidate (none outside an interview)."""
    if ws.interview is None:
        return ()
    return tuple(said.messages_of(session=session, interview_id=ws.interview.id))


def messages_after(session: Session, ws: Workspace) -> int:
    """The newest message event id the page shows: its stream starts after it."""
    if ws.interview is None:
        return 0
    return log.newest_id(session, ws.interview.id, kinds=("message",))
