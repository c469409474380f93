"""JSON API for attempts: submit files for grading, read an attempt's result."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.attempts import service, views
from app.attempts.etag import api_etag, if_none_match, not_modified, with_validator
from app.attempts.schemas import AttemptCancelled, AttemptCreate, AttemptQueued
from app.auth.deps import CurrentUser, SessionDep
from app.core.db import run_read
from app.core.errors import DojoError
from app.http.params import RowIdPath
from app.http.responses import FastJSONResponse
from app.users.models import User

router = APIRouter(prefix="/api/attempts", tags=["attempts"])


@router.post("", status_code=202, response_model=AttemptQueued)
def create_attempt(body: AttemptCreate, user: CurrentUser, session: SessionDep) -> AttemptQueued:
    """Queue a run or a submission; grading starts once the attempt is committed."""
    session.commit()  # end the sign-in's read transaction: the attempt is written in a fresh one
    try:
        attempt = service.create_attempt(
            session=session,
            user=user,
            scenario=body.scenario,
            files=body.files,
            kind=body.kind,
            notes=body.notes,
            interview_id=body.interview,
        )
    except DojoError:
        session.rollback()  # the one error handler answers it; nothing of the request stays
        raise
    session.commit()
    return AttemptQueued(id=attempt.id)


# Polled while an attempt is graded. The view is plain JSON already (a typed dictionary, which the
# response model describes), so it is answered as it is: returned as the body, FastAPI would validate
# and re-encode it. Async, with the read in run_read: on SQLite the whole request makes no trip to a
# worker thread.
@router.get("/{attempt_id}", response_model=views.AttemptBody)
async def read_attempt(request: Request, attempt_id: RowIdPath, user: CurrentUser, session: SessionDep) -> Response:
    """The attempt shaped for the viewer; 404 for attempts the viewer may not read. With If-None-Match
    naming the ETag of what it would show, 304 and no body (see app/attempts/etag.py)."""
    return await run_read(session, _attempt_answer, request, attempt_id, user, session)


def _attempt_answer(request: Request, attempt_id: int, user: User, session: Session) -> Response:
    etag = api_etag(session, user=user, attempt_id=attempt_id)  # first: a change meanwhile is fetched next time
    if etag is not None and if_none_match(request, etag):
        return not_modified(etag)
    return with_validator(FastJSONResponse(_attempt_view(attempt_id, user, session)), etag)


def _attempt_view(attempt_id: int, user: User, session: Session) -> views.AttemptBody:
    attempt = service.visible_attempt(session=session, attempt_id=attempt_id, user=user)
    if attempt is None:
        raise HTTPException(404, f"Attempt {attempt_id} not found.")
    return views.attempt_view(session=session, attempt=attempt, viewer=user)


@router.post("/{attempt_id}/cancel", response_model=AttemptCancelled)
def cancel_attempt(attempt_id: RowIdPath, user: CurrentUser, session: SessionDep) -> AttemptCancelled:
    """Withdraw one's own attempt while it is still queued; 409 once a worker has taken it."""
    service.cancel_own_attempt(session=session, attempt_id=attempt_id, user=user)
    session.commit()
    return AttemptCancelled(id=attempt_id)
