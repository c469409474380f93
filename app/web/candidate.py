"""The candidate dashboard: published challenges and the candidate's own attempts."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.attempts.models import Attempt
from app.auth.deps import CurrentUser, SessionDep
from app.core.db import run_read
from app.http.templating import render
from app.scenarios import service as scenarios_service
from app.scenarios.models import ScenarioVersion
from app.users.models import User

router = APIRouter(tags=["pages"], include_in_schema=False)

RECENT_ATTEMPTS = 50


# Built once (with the user as a bound parameter): building a statement costs more than running it.
# Only the columns the table shows: an attempt's files and result are tens of kilobytes each.
_RECENT = (
    select(Attempt.id, Attempt.kind, Attempt.status, Attempt.created_at, ScenarioVersion.title,
           ScenarioVersion.version)
    .join(ScenarioVersion, ScenarioVersion.id == Attempt.scenario_version_id)
    .where(Attempt.user_id == bindparam("user_id"))
    .order_by(Attempt.created_at.desc(), Attempt.id.desc())
    .limit(RECENT_ATTEMPTS)
)


@router.get("/candidate", name="candidate_dashboard")
async def candidate_dashboard(request: Request, user: CurrentUser, session: SessionDep) -> Response:
    """Challenges to practise and the signed-in user's attempts (every role may practise)."""
    return await run_read(session, _dashboard, request, user, session)


def _dashboard(request: Request, user: User, session: Session) -> Response:
    challenges = scenarios_service.published_cards(session=session)
    attempts = session.execute(_RECENT, {"user_id": user.id}).all()
    return render(request, "candidate.html", {"challenges": challenges, "attempts": attempts})
