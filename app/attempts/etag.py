"""Validators (ETags) of the attempt views that pages and clients poll while an attempt is graded.

A poll that sends back the ETag of what it last saw (If-None-Match) is answered 304, with no body, when
nothing the answer shows has changed. The validator is worked out from one indexed read of the attempt's
small columns and a few indexed aggregates (queue position, the newest attempt of its panel, its tips and
their ratings): no files, no grading result while it runs, no template. It is a hash of everything the
answer shows that can change, so it tells nothing about the attempt to whoever holds it.

A finished attempt is polled only while its coaching tips may still come (a few seconds). Its validator
also covers the stored result and error (read as text, not parsed) and, for the workspace panel, what the
panel refreshes alongside it: History (each attempt's status and score), the hints taken and the interview
clock; those are three more small reads.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from sqlalchemy import Row, Text, bindparam, case, cast, func, select
from sqlalchemy.orm import Session, aliased
from starlette.requests import Request
from starlette.responses import Response

from app.attempts.models import Attempt, AttemptKind, AttemptStatus
from app.attempts.service import may_read
from app.coaching.models import CoachingTip, TipRating
from app.core.db import as_utc, utcnow
from app.interviews import clock
from app.interviews.models import Interview
from app.scenarios.models import Scenario, ScenarioVersion
from app.scenarios.service import PUBLISHED
from app.users.models import User
from app.workspace.models import HintReveal, scope_for
from app.workspace.results import tips_still_coming

# Part of every validator: bump it when a view starts showing something new, so old ETags stop matching.
SHAPE = 1
IN_FLIGHT = (AttemptStatus.queued.value, AttemptStatus.running.value)
HEADERS = {"Cache-Control": "no-cache"}  # a cache may keep the answer but must ask (If-None-Match) each time

_Other = aliased(Attempt)
_Tip = aliased(CoachingTip)
_Published = aliased(ScenarioVersion)
_in_flight = Attempt.status.in_(IN_FLIGHT)

# The stored result and error as text, only once finished: hashed, never parsed.
_RESULT_TEXT = case((_in_flight, None), else_=cast(Attempt.result, Text)).label("result_text")
_ERROR_TEXT = case((_in_flight, None), else_=cast(Attempt.error, Text)).label("error_text")
# The tips of the attempt and their ratings, count and newest of each: store_tips replaces the tips
# with new rows, and rating a tip again updates its rating's row.
_TIP_COLUMNS = (
    select(func.count(CoachingTip.id)).where(CoachingTip.attempt_id == Attempt.id)
    .correlate(Attempt).scalar_subquery().label("tip_count"),
    select(func.max(CoachingTip.id)).where(CoachingTip.attempt_id == Attempt.id)
    .correlate(Attempt).scalar_subquery().label("tip_last"),
    select(func.count(TipRating.id)).join(_Tip, _Tip.id == TipRating.tip_id).where(_Tip.attempt_id == Attempt.id)
    .correlate(Attempt).scalar_subquery().label("rating_count"),
    select(func.max(TipRating.updated_at)).join(_Tip, _Tip.id == TipRating.tip_id)
    .where(_Tip.attempt_id == Attempt.id).correlate(Attempt).scalar_subquery().label("rating_last"),
)


def _panel_of(kind: Any) -> Any:
    """Which workspace panel shows attempts of this kind: the scratch console or Results."""
    return case((kind == AttemptKind.scratch.value, "console"), else_="results")


# How many queued attempts are ahead of a queued one (the panel says so).
_QUEUED_AHEAD = case((Attempt.status == AttemptStatus.queued.value, select(func.count(_Other.id)).where(
    _Other.status == AttemptStatus.queued.value, _Other.id < Attempt.id).correlate(Attempt).scalar_subquery()))
# The newest attempt of the same panel in the same workspace (a tab that knows only older ones says so).
_NEWEST_OF_PANEL = select(func.max(_Other.id)).where(
    _Other.user_id == Attempt.user_id, _Other.scenario_version_id == Attempt.scenario_version_id,
    _Other.interview_id.is_not_distinct_from(Attempt.interview_id),
    _panel_of(_Other.kind) == _panel_of(Attempt.kind)).correlate(Attempt).scalar_subquery()
# The version practice opens for the attempt's challenge (the panel is only for attempts of it).
_PUBLISHED_VERSION = case((Attempt.interview_id.is_(None), select(_Published.id).where(
    _Published.scenario_id == ScenarioVersion.scenario_id, _Published.status == PUBLISHED)
    .order_by(_Published.version.desc()).limit(1).correlate(ScenarioVersion).scalar_subquery()))

_PANEL_STATE = (
    select(Attempt.id, Attempt.user_id, Attempt.interview_id, Attempt.scenario_version_id, Attempt.kind,
           Attempt.status, Attempt.progress, Attempt.finished_at, Scenario.slug, Scenario.archived,
           Interview.candidate_id.label("interview_candidate"), _PUBLISHED_VERSION.label("published_version"),
           _QUEUED_AHEAD.label("queued_ahead"), _NEWEST_OF_PANEL.label("newest"), *_TIP_COLUMNS,
           _RESULT_TEXT, _ERROR_TEXT)
    .join(ScenarioVersion, ScenarioVersion.id == Attempt.scenario_version_id)
    .join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
    .outerjoin(Interview, Interview.id == Attempt.interview_id)
    .where(Attempt.id == bindparam("attempt_id"))
)

_API_STATE = (
    select(Attempt.id, Attempt.user_id, Attempt.interview_id, Attempt.status, Attempt.progress, Attempt.score,
           Attempt.tries, Attempt.started_at, Attempt.finished_at, *_TIP_COLUMNS, _RESULT_TEXT, _ERROR_TEXT)
    .where(Attempt.id == bindparam("attempt_id"))
)


def make_etag(*parts: object) -> str:
    """A weak ETag naming these parts: equal parts, equal tag (the answer means the same, byte for byte
    or not: weak, since the same state may be rendered at another moment)."""
    return 'W/"' + hashlib.blake2b(repr((SHAPE, *parts)).encode(), digest_size=16).hexdigest() + '"'


def if_none_match(request: Request, etag: str) -> bool:
    """True when the request's If-None-Match names this ETag (compared weakly, as RFC 9110 says for GET)."""
    header = request.headers.get("if-none-match")
    if not header:
        return False
    wanted = etag.removeprefix("W/")
    return any(tag == "*" or tag.removeprefix("W/") == wanted for tag in (t.strip() for t in header.split(",")))


def not_modified(etag: str) -> Response:
    """304: the client's copy is still what the view shows."""
    return Response(status_code=304, headers={"ETag": etag, **HEADERS})


def with_validator(response: Response, etag: str | None) -> Response:
    """The headers of a full answer: its ETag, and no-cache so each poll asks again."""
    if etag is not None:
        response.headers["ETag"] = etag
        response.headers.update(HEADERS)
    return response


def _tips_part(row: Row[Any]) -> tuple[Any, ...]:
    return row.tip_count, row.tip_last, row.rating_count, _moment(row.rating_last)


def _moment(value: datetime | None) -> str | None:
    return as_utc(value).isoformat() if value is not None else None


def _common_part(row: Row[Any], user: User) -> tuple[Any, ...]:
    """What both views show of the attempt's state, for this viewer (staff see more)."""
    finished = row.status not in IN_FLIGHT
    return (row.id, user.id, user.role, row.status, row.progress, _moment(row.finished_at), *_tips_part(row),
            _digest(row.result_text) if finished else None, _digest(row.error_text) if finished else None)


def _digest(text: str | None) -> str | None:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest() if text is not None else None


def api_etag(session: Session, *, user: User, attempt_id: int) -> str | None:
    """The validator of GET /api/attempts/{id} for this viewer, or None when the viewer may not read the
    attempt (the full read then answers 404, as it always has)."""
    row = session.execute(_API_STATE, {"attempt_id": attempt_id}).first()
    if row is None or not may_read(session=session, user=user, owner_id=row.user_id, interview_id=row.interview_id):
        return None
    return make_etag("api", *_common_part(row, user), row.score, row.tries, _moment(row.started_at))


def panel_etag(session: Session, *, user: User, slug: str, attempt_id: int, interview_id: int | None,
               form_key: str) -> str | None:
    """The validator of the workspace's Results (or console) fragment of one attempt, or None when the
    attempt is not one of this workspace's (the full read answers 404). form_key: what the fragment's
    form token is derived from (the session's nonce; see form_key_of)."""
    row = session.execute(_PANEL_STATE, {"attempt_id": attempt_id}).first()
    if row is None or not _in_workspace(row, user=user, slug=slug, interview_id=interview_id):
        return None
    finished = row.status not in IN_FLIGHT
    has_tips = bool(row.tip_count)
    awaiting_tips = finished and tips_still_coming(kind=row.kind, status=row.status, finished_at=row.finished_at,
                                                   has_tips=has_tips)  # fmt: skip
    # A finished attempt's fragment refreshes History and the hints with it (see render_panel).
    around = _refreshed_with_finished(session, row, user=user) if finished else ()
    return make_etag("panel", *_common_part(row, user), row.kind, row.queued_ahead, row.newest, awaiting_tips,
                     form_key, *around)


def form_key_of(request: Request) -> str:
    """The session's nonce, from which the CSRF token of the fragment's Cancel form is derived: a new
    session means a new token. Read, never created: a 304 sets no cookie."""
    nonce = request.session.get("nonce")
    return nonce if isinstance(nonce, str) else ""


def _in_workspace(row: Row[Any], *, user: User, slug: str, interview_id: int | None) -> bool:
    """The checks of open_workspace and own_attempt, on the row: the user's own attempt, in this
    interview (or in practice on the challenge's published version), on this challenge."""
    if row.user_id != user.id or row.interview_id != interview_id or row.slug != slug:
        return False
    if interview_id is not None:
        return bool(row.interview_candidate == user.id)
    return not row.archived and row.published_version == row.scenario_version_id


def _refreshed_with_finished(session: Session, row: Row[Any], *, user: User) -> tuple[Any, ...]:
    """What the finished attempt's fragment shows besides the attempt: History, the hints, the clock."""
    scope = Attempt.interview_id.is_(None) if row.interview_id is None else Attempt.interview_id == row.interview_id
    history = session.execute(
        select(Attempt.id, Attempt.status, Attempt.score)
        .where(Attempt.user_id == user.id, Attempt.scenario_version_id == row.scenario_version_id, scope)
        .order_by(Attempt.id.desc())).all()
    hints = session.execute(
        select(func.count(HintReveal.id), func.max(HintReveal.id))
        .where(HintReveal.user_id == user.id, HintReveal.scenario_version_id == row.scenario_version_id,
               HintReveal.scope == scope_for(row.interview_id))).one()  # fmt: skip
    return tuple(tuple(r) for r in history), tuple(hints), _closed(session, row.interview_id)


def _closed(session: Session, interview_id: int | None) -> bool:
    """The interview is over for the candidate (the hints then offer nothing more)."""
    interview = session.get(Interview, interview_id) if interview_id is not None else None
    if interview is None:
        return False
    try:
        clock.refuse_after_deadline(interview, now=utcnow())
    except clock.TimeIsUp:
        return True
    return False
