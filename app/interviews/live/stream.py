"""The live streams (server-sent events): an interviewer following an interview, a candidate's messages.

A stream sends the interview's logged events after the client's last one (Last-Event-ID on a reconnect,
or `?after=` on the first connection), then waits for a wake-up from the hub (or LIVE_CHECK_SECONDS) and
sends what is new. It holds no database connection while it waits: each look is a short session of its own.

Every LIVE_CHECK_SECONDS it checks, on the stream itself, that the client may still see it: the session
cookie or bearer token is re-read as on a new request (a sign-out, a revoked session or token, a
deactivated account or a role change ends the stream), and so is the right to the interview. The same
look logs each Run and Submit's new status (and grading stage) as an `attempt` event, written once
whichever follower sees it first, and an `ended` event when the interview is over, after which the
stream closes.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

import anyio
import orjson
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from starlette.requests import Request

from app.attempts.models import Attempt, AttemptKind
from app.attempts.staff_verdict import staff_verdict
from app.auth import sessions, tokens
from app.auth.csrf import is_bearer_request
from app.core.db import new_session, reads_inline
from app.core.settings import get_settings
from app.grading.result import GradeResult
from app.interviews import access
from app.interviews.live import log
from app.interviews.live.hub import get_hub
from app.interviews.live.models import LiveEvent
from app.interviews.models import Interview
from app.interviews.state import State, interview_state
from app.users.models import User
from app.workspace.results import progress_of

KEEPALIVE_SECONDS = 15.0
RETRY_MS = 1500
STAFF_KINDS = None  # every kind
CANDIDATE_KINDS = ("message", "ended")
GRADED = (AttemptKind.run.value, AttemptKind.submit.value)
T = TypeVar("T")


@dataclass(frozen=True)
class Look:
    """What one check found: whether the client may go on, whether the interview is over, attempt updates."""

    allowed: bool
    ended: bool = False
    state: str = ""
    attempts: list[tuple[str, dict[str, object]]] = field(default_factory=list)  # (key, event data)


def signed_in_user(request: Request, session: Session) -> User | None:
    """The request's user, checked again as a new request would be (cookie or bearer token)."""
    if is_bearer_request(request):
        token = request.headers["authorization"].partition(" ")[2].strip()
        found = tokens.token_owner(session=session, token=token) if token else None
        if found is None or not found[1].is_active:
            return None
        return found[1]
    uid = sessions.session_user_id(request, max_age_seconds=get_settings().session_max_age_seconds)
    return sessions.session_user(request, session, uid) if uid is not None else None


def _ended(interview: Interview) -> tuple[bool, str]:
    state = interview_state(interview)
    return state in (State.submitted, State.expired, State.revoked), state.value


def attempt_updates(session: Session, interview: Interview) -> list[tuple[str, dict[str, object]]]:
    """Each Run and Submit's current status (and stage while it runs) as (key, event data). `number` counts
    every kind, scratch runs too, as the candidate's History and the review do; `verdict` is what the review
    prints (a Run's public checks, its hidden ones beside), `shown_status` the status it stands for."""
    out = []
    # An interview is one workspace: its attempts' numbers are their places in id order, counted in the same
    # statement that reads them (two statements could see two states: a grading worker inserts meanwhile).
    numbered = (select(Attempt.id.label("id"), func.row_number().over(order_by=Attempt.id).label("number"))
                .where(Attempt.interview_id == interview.id).subquery())
    rows = session.execute(select(Attempt, numbered.c.number).join(numbered, numbered.c.id == Attempt.id)
                           .where(Attempt.kind.in_(GRADED)).order_by(Attempt.id)).all()
    for attempt, number in rows:
        progress = progress_of(session=session, attempt=attempt).text if attempt.status in ("queued", "running") \
            else None
        stage = str((attempt.progress or {}).get("stage") or "") if attempt.status == "running" else ""
        key = f"attempt:{attempt.id}:{attempt.status}:{stage}"[:80]
        moment = attempt.finished_at or attempt.created_at
        # Only a finished Run's verdict reads its checks; a Submit's is its stored status.
        judged = attempt.kind == AttemptKind.run.value and attempt.status in ("passed", "failed")
        verdict = staff_verdict(attempt, GradeResult.from_stored(attempt.result) if judged else None)
        out.append((key, {"id": attempt.id, "kind": attempt.kind, "number": int(number),
                          "status": attempt.status, "shown_status": verdict.status, "verdict": verdict.text,
                          "score": attempt.score,
                          "progress": progress, "seconds": log.clock_seconds(interview, moment)}))
    return out


def look_as_staff(request: Request, interview_id: int, user_id: int, session: Session) -> Look:
    user = signed_in_user(request, session)
    interview = session.get(Interview, interview_id)
    if user is None or user.id != user_id or interview is None or user.role not in access.STAFF \
            or not access.can_view(session=session, user=user, interview=interview):
        return Look(allowed=False)
    ended, state = _ended(interview)
    return Look(allowed=True, ended=ended, state=state, attempts=attempt_updates(session, interview))


def look_as_candidate(request: Request, interview_id: int, user_id: int, session: Session) -> Look:
    user = signed_in_user(request, session)
    interview = session.get(Interview, interview_id)
    if user is None or user.id != user_id or interview is None or interview.candidate_id != user.id:
        return Look(allowed=False)
    ended, state = _ended(interview)
    return Look(allowed=True, ended=ended, state=state)


async def with_session(fn: Callable[[Session], T], *, writes: bool = False) -> T:
    """Run fn on a short session of its own: inline for reads of the embedded SQLite, else on a thread."""
    session = new_session()
    try:
        if not writes and reads_inline(session):
            return fn(session)
        return await anyio.to_thread.run_sync(fn, session)
    finally:
        if reads_inline(session):
            session.close()
        else:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(session.close)


def _log_updates(interview_id: int, updates: list[tuple[str, str, dict[str, object]]], session: Session) -> None:
    for kind, key, data in updates:
        log.append_once(session, interview_id, kind, data, key=key)


def _known_keys(interview_id: int, session: Session) -> set[str]:
    return {k for k in session.scalars(select(LiveEvent.key).where(
        LiveEvent.interview_id == interview_id, LiveEvent.key.is_not(None))) if k}


def format_event(event: log.StreamEvent) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (event.id, event.kind.encode(), orjson.dumps(event.data))


def last_event_id(request: Request, after: int | None) -> int:
    """Where the client is: the Last-Event-ID header of a reconnect, else ?after=, else the start."""
    header = request.headers.get("last-event-id", "").strip()
    if header.isdigit() and len(header) < 19:
        return int(header)
    return after or 0


async def live_events(request: Request, *, interview_id: int, user_id: int, after: int,
                      staff: bool) -> AsyncIterator[bytes]:
    """The stream's bytes: events after `after`, then new ones as they come, until the end or a lost right."""
    look = look_as_staff if staff else look_as_candidate
    check_seconds = get_settings().live_check_seconds
    kinds = STAFF_KINDS if staff else CANDIDATE_KINDS
    hub = get_hub()
    waiter = hub.subscribe(interview_id)
    try:
        yield b"retry: %d\n\n" % RETRY_MS
        last = after
        known: set[str] = await with_session(partial(_known_keys, interview_id)) if staff else set()
        next_check = 0.0
        last_sent = time.monotonic()
        ended = False
        while True:
            now = time.monotonic()
            if now >= next_check:
                found = await with_session(partial(look, request, interview_id, user_id))
                if not found.allowed:
                    yield b": access ended\n\n"
                    return
                updates = [("attempt", key, data) for key, data in found.attempts if key not in known]
                if found.ended and "ended" not in known:
                    updates.append(("ended", "ended", {"state": found.state}))
                if updates:
                    await with_session(partial(_log_updates, interview_id, updates), writes=True)
                    known.update(key for _kind, key, _data in updates)
                ended = found.ended
                next_check = time.monotonic() + check_seconds
            events = await with_session(partial(log.events_after, interview_id=interview_id, after=last,
                                                 kinds=kinds))
            for event in events:
                yield format_event(event)
                last, last_sent = event.id, time.monotonic()
                if event.kind == "ended":
                    return
            if len(events) >= log.READ_LIMIT:
                continue  # a full page: read on before waiting
            if ended:
                return  # over, and the client already had the end
            if time.monotonic() - last_sent >= KEEPALIVE_SECONDS:
                yield b": keep-alive\n\n"
                last_sent = time.monotonic()
            await waiter.wait(max(0.05, next_check - time.monotonic()))
    finally:
        hub.unsubscribe(waiter)
