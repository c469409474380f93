"""The live interview's routes: the follow stream, notes, messages, the candidate's presence and messages, playback.

JSON API (CONTRACTS.md section 2): GET /api/interviews/{id}/live (server-sent events), POST .../notes,
POST .../messages. Page routes: the same notes and messages as plain forms (htmx swaps a fragment),
the candidate's message stream and presence reports, the keystroke playback's data.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Form, HTTPException, Query, Request
from sqlalchemy.orm import Session
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse

from app.auth.deps import NOT_AUTHENTICATED, CurrentUser, SessionDep
from app.core.db import get_session
from app.http.params import MAX_ROW_ID, RowIdPath
from app.http.templating import is_htmx, render
from app.interviews import access
from app.interviews.deps import ReviewerUser
from app.interviews.errors import InterviewError, InterviewNotFound
from app.interviews.live import playback, said
from app.interviews.live.recording import LiveReport, record_presence
from app.interviews.live.schemas import InterviewWithNotes, NoteOut, Said, SayBody
from app.interviews.live.stream import last_event_id, live_events, signed_in_user
from app.interviews.live.view import live_view
from app.interviews.models import Interview
from app.interviews.schemas import InterviewOut
from app.interviews.state import State, interview_state

router = APIRouter(tags=["interviews"])
pages = APIRouter(tags=["pages"], include_in_schema=False)
AfterQuery = Annotated[int | None, Query(ge=0, le=MAX_ROW_ID)]
STREAM_HEADERS = {"Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"}
LIVE_TEMPLATE = "review/_live.html"
# A stream's first look: the session ends before the stream starts, so a stream holds no connection (and,
# on PostgreSQL, none of the request slots) while it waits; its later looks open short sessions of their own.
ShortSession = Annotated[Session, Depends(get_session, scope="function")]


def with_notes(out: InterviewOut, *, session: Session, interview_id: int) -> InterviewWithNotes:
    """GET /api/interviews/{id} for interviewers and admins: the private notes and the messages added."""
    def listed(items: list[said.Said]) -> list[NoteOut]:
        return [NoteOut(id=s.id, text=s.text, seconds=s.seconds, author=s.author, created_at=s.created_at.isoformat())
                for s in items]
    notes = listed(said.notes_of(session=session, interview_id=interview_id))
    messages = listed(said.messages_of(session=session, interview_id=interview_id))
    return InterviewWithNotes(**out.model_dump(), notes=notes, messages=messages)


def _who_may_follow(request: Request, interview_id: int, session: Session) -> tuple[int | None, bool]:
    """(user id, may follow) for the stream's first look, without a request-long database session."""
    user = signed_in_user(request, session)
    if user is None:
        return None, False
    interview = session.get(Interview, interview_id)
    allowed = (interview is not None and user.role in access.STAFF
               and access.can_view(session=session, user=user, interview=interview))
    return user.id, allowed


def _candidate_of(request: Request, interview_id: int, session: Session) -> tuple[int | None, bool]:
    user = signed_in_user(request, session)
    if user is None:
        return None, False
    interview = session.get(Interview, interview_id)
    return user.id, interview is not None and interview.candidate_id == user.id


def _stream(request: Request, interview_id: int, user_id: int, after: int | None, *, staff: bool) -> StreamingResponse:
    events = live_events(request, interview_id=interview_id, user_id=user_id, after=last_event_id(request, after),
                         staff=staff)
    return StreamingResponse(events, media_type="text/event-stream", headers=STREAM_HEADERS)


@router.get("/api/interviews/{interview_id}/live", name="api_interview_live",
            responses={200: {"content": {"text/event-stream": {}}}})
def follow_interview(request: Request, interview_id: RowIdPath, session: ShortSession,
                     after: AfterQuery = None) -> StreamingResponse:
    """Server-sent events of an interview in progress (draft, presence, attempt, message, ended), each with an id.

    A reconnect that sends Last-Event-ID gets every event after it; `?after=` does the same on a first
    connection. For the interview's interviewers and admins; 404 for anyone else.
    """
    user_id, allowed = _who_may_follow(request, interview_id, session)
    session.commit()
    if user_id is None:
        raise HTTPException(401, NOT_AUTHENTICATED, {"WWW-Authenticate": "Bearer"})
    if not allowed:
        raise InterviewNotFound(f"Interview {interview_id} not found.")
    return _stream(request, interview_id, user_id, after, staff=True)


@router.post("/api/interviews/{interview_id}/notes", status_code=201, name="api_add_note")
def add_note(interview_id: RowIdPath, body: Annotated[SayBody, Body()], user: ReviewerUser,
             session: SessionDep) -> Said:
    """A private note stamped with the interview clock; never shown to the candidate."""
    interview = access.visible_interview(session=session, user=user, interview_id=interview_id)
    note = said.add_note(session=session, interview=interview, author=user, text=body.text)
    session.commit()
    return Said(id=note.id, seconds=note.seconds)


@router.post("/api/interviews/{interview_id}/messages", status_code=201, name="api_send_message")
def send_message(interview_id: RowIdPath, body: Annotated[SayBody, Body()], user: ReviewerUser,
                 session: SessionDep) -> Said:
    """A short message to the candidate, shown in their workspace at once (while the interview runs)."""
    interview = access.visible_interview(session=session, user=user, interview_id=interview_id)
    message = said.send_message(session=session, interview=interview, author=user, text=body.text)
    session.commit()
    return Said(id=message.id, seconds=message.seconds)


def _said_form(request: Request, session: Session, user: ReviewerUser, interview_id: int, text: str,
               *, note: bool) -> Response:
    interview = access.visible_interview(session=session, user=user, interview_id=interview_id)
    error = None
    try:
        if note:
            said.add_note(session=session, interview=interview, author=user, text=text)
        else:
            said.send_message(session=session, interview=interview, author=user, text=text)
        session.commit()
    except InterviewError as exc:
        session.rollback()
        if not is_htmx(request):
            raise
        error = exc.message
    if not is_htmx(request):
        url = request.url_for("interview_review", interview_id=interview_id)
        return RedirectResponse(f"{url}#live", status_code=303)
    view = live_view(session=session, interview=interview, user=user)
    context = {"interview": interview, "live": view, "said_error": error, "said_note": note,
               "said_text": text if error else ""}
    return render(request, LIVE_TEMPLATE, context, block="notes" if note else "messages",
                  status_code=200 if error is None else 422)


@pages.post("/interviewer/interviews/{interview_id}/notes", name="add_note_form")
def add_note_form(request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep,
                  text: Annotated[str, Form(max_length=said.NOTE_MAX_CHARS + 100)] = "") -> Response:
    """The "Add note" form: back to the page at the notes, or the notes fragment for htmx."""
    return _said_form(request, session, user, interview_id, text, note=True)


@pages.post("/interviewer/interviews/{interview_id}/messages", name="send_message_form")
def send_message_form(request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep,
                      text: Annotated[str, Form(max_length=said.MESSAGE_MAX_CHARS + 100)] = "") -> Response:
    """The "Send" form: back to the page, or the messages fragment for htmx."""
    return _said_form(request, session, user, interview_id, text, note=False)


@pages.get("/interviewer/interviews/{interview_id}/playback.json", name="interview_keystrokes")
def keystroke_playback(interview_id: RowIdPath, user: ReviewerUser, session: SessionDep) -> Response:
    """Everything the playback player replays: starter files, keystroke steps, attempts, notes, markers."""
    interview = access.visible_interview(session=session, user=user, interview_id=interview_id)
    data = playback.playback_data(session=session, interview=interview)
    return JSONResponse(data.to_dict(), headers={"Cache-Control": "no-store"})


@pages.get("/interviews/{interview_id}/messages/live", name="candidate_messages_live")
def candidate_messages(request: Request, interview_id: RowIdPath, session: ShortSession,
                       after: AfterQuery = None) -> StreamingResponse:
    """The candidate's own interview: messages from the interviewer as server-sent events (never notes)."""
    user_id, allowed = _candidate_of(request, interview_id, session)
    session.commit()
    if user_id is None:
        raise HTTPException(401, NOT_AUTHENTICATED)
    if not allowed:
        raise InterviewNotFound(f"Interview {interview_id} not found.")
    return _stream(request, interview_id, user_id, after, staff=False)


@pages.post("/interviews/{interview_id}/live/presence", name="candidate_presence", status_code=204)
def candidate_presence(interview_id: RowIdPath, user: CurrentUser, session: SessionDep,
                       body: Annotated[LiveReport, Body()]) -> Response:
    """Where the candidate is (file shown, cursor line, focus, activity) between saves, for followers."""
    interview = session.get(Interview, interview_id)
    if interview is None or interview.candidate_id != user.id:
        raise InterviewNotFound(f"Interview {interview_id} not found.")
    if interview_state(interview) is State.started and not body.changes:
        record_presence(session=session, interview=interview, report=body)
        session.commit()
    return Response(status_code=204)
