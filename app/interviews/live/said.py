"""Private notes (interviewers only) and messages to the candidate, each stamped with the interview clock.

Notes never leave the staff side: they are not live events (the candidate's message stream reads only
`message` events), not part of anything the candidate's pages, API or exports read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.db import as_utc
from app.interviews.errors import InterviewError
from app.interviews.live import log
from app.interviews.live.models import InterviewMessage, InterviewNote
from app.interviews.models import Interview
from app.interviews.state import State, interview_state
from app.users.models import User

NOTE_MAX_CHARS = 4000
MESSAGE_MAX_CHARS = 500
NOTES_PER_INTERVIEW = 500
MESSAGES_PER_INTERVIEW = 100


@dataclass(frozen=True)
class Said:
    """A note or a message as pages and the API show it."""

    id: int
    text: str
    seconds: int
    author: str
    created_at: datetime


def _clean(text: str, limit: int, what: str) -> str:
    text = text.strip()
    if not text:
        raise InterviewError(f"Write the {what} first: it is empty.", 422)
    if len(text) > limit:
        raise InterviewError(f"The {what} is {len(text)} characters long; the limit is {limit}.", 422)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise InterviewError(f"The {what} is not valid UTF-8 text.", 422)
    return text


def add_note(*, session: Session, interview: Interview, author: User, text: str) -> InterviewNote:
    """A private note at the current moment of the interview clock (flushed)."""
    text = _clean(text, NOTE_MAX_CHARS, "note")
    count = session.scalar(select(func.count(InterviewNote.id)).where(InterviewNote.interview_id == interview.id)) or 0
    if count >= NOTES_PER_INTERVIEW:
        raise InterviewError(f"This interview has {NOTES_PER_INTERVIEW} notes, the most it keeps.", 409)
    note = InterviewNote(interview_id=interview.id, author_id=author.id, text=text,
                         seconds=log.clock_seconds(interview))
    session.add(note)
    session.flush()
    return note


def send_message(*, session: Session, interview: Interview, author: User, text: str) -> InterviewMessage:
    """A message to the candidate while the interview runs (flushed); it reaches their workspace live."""
    text = _clean(text, MESSAGE_MAX_CHARS, "message")
    if interview_state(interview) is not State.started:
        raise InterviewError("Messages reach the candidate only while the interview is in progress.", 409)
    log.lock_interview(session, interview.id)
    count = session.scalar(select(func.count(InterviewMessage.id))
                           .where(InterviewMessage.interview_id == interview.id)) or 0
    if count >= MESSAGES_PER_INTERVIEW:
        raise InterviewError(f"This interview has {MESSAGES_PER_INTERVIEW} messages, the most it keeps.", 409)
    message = InterviewMessage(interview_id=interview.id, author_id=author.id, text=text,
                               seconds=log.clock_seconds(interview))
    session.add(message)
    session.flush()
    log.append(session, interview.id, "message", {"id": message.id, "text": text, "seconds": message.seconds},
               locked=True)
    return message


def _said(session: Session, model: type[InterviewNote] | type[InterviewMessage], interview_id: int) -> list[Said]:
    rows = session.execute(
        select(model.id, model.text, model.seconds, model.created_at, User.email)
        .outerjoin(User, User.id == model.author_id)
        .where(model.interview_id == interview_id).order_by(model.seconds, model.id)).all()
    return [Said(id=row.id, text=row.text, seconds=row.seconds, author=row.email or "(deleted account)",
                 created_at=as_utc(row.created_at)) for row in rows]


def notes_of(*, session: Session, interview_id: int) -> list[Said]:
    """The interview's private notes by clock time: for interviewers and admins only."""
    return _said(session, InterviewNote, interview_id)


def messages_of(*, session: Session, interview_id: int) -> list[Said]:
    """The messages sent to the candidate by clock time."""
    return _said(session, InterviewMessage, interview_id)
