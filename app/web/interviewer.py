"""The interviewer dashboard: their interviews and a form that creates one and shows its invite link once."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from sqlalchemy import select
from starlette.responses import Response

from app.auth.deps import InterviewerUser, SessionDep
from app.http.params import RowIdForm
from app.http.templating import is_htmx, render
from app.interviews import access, invites
from app.interviews import service as interviews_service
from app.interviews.state import interview_state
from app.scenarios import service as scenarios_service
from app.scenarios.models import ScenarioVersion
from app.users.models import User

router = APIRouter(prefix="/interviewer", tags=["pages"], include_in_schema=False)


def _page_context(session: Any, user: User, **extra: Any) -> dict[str, object]:
    interviews = access.interviews_for(session=session, interviewer=user)
    version_ids = {interview.scenario_version_id for interview in interviews}
    titles = dict(
        session.execute(select(ScenarioVersion.id, ScenarioVersion.title).where(ScenarioVersion.id.in_(version_ids)))
        .all()
    ) if version_ids else {}
    form = {"candidate_email": "", "scenario_version_id": "", "time_limit_minutes": 60, "valid_days": 7}
    return {
        "interviews": interviews,
        "states": {interview.id: interview_state(interview).value for interview in interviews},
        "titles": titles,
        "challenges": scenarios_service.published_cards(session=session),
        "form": form,
        **extra,
    }


@router.get("", name="interviewer_dashboard")
def interviewer_dashboard(request: Request, user: InterviewerUser, session: SessionDep) -> Response:
    """The interviewer's interviews and the create form."""
    return render(request, "interviewer.html", _page_context(session, user))


@router.post("/interviews", name="create_interview")
def create_interview(
    request: Request,
    user: InterviewerUser,
    session: SessionDep,
    candidate_email: Annotated[str, Form()] = "",
    scenario_version_id: RowIdForm = 0,
    time_limit_minutes: Annotated[int, Form()] = 60,
    valid_days: Annotated[int, Form()] = 7,
) -> Response:
    """Create an interview; the response is the only place the invite link is ever shown."""
    form = {"candidate_email": candidate_email, "scenario_version_id": scenario_version_id,
            "time_limit_minutes": time_limit_minutes, "valid_days": valid_days}
    version = session.get(ScenarioVersion, scenario_version_id)
    try:
        if version is None:
            raise interviews_service.InterviewError("Choose a challenge from the list.")
        interview, token = interviews_service.create_interview(
            session=session, interviewer=user, candidate_email=candidate_email, scenario_version=version,
            time_limit_minutes=time_limit_minutes, expires_in=timedelta(days=valid_days),
        )
    except interviews_service.InterviewError as exc:
        session.rollback()
        context = {**_page_context(session, user), "form": form, "error": str(exc)}
        return render(request, "interviewer.html", context, status_code=exc.status_code, block=_block(request))
    session.commit()
    invite_url = str(request.url_for("invite_page", token=token))
    delivery = invites.deliver(session=session, interview=interview, invite_url=invite_url)
    session.commit()
    created: dict[str, object] = {"interview": interview, "invite_url": invite_url, "delivery": delivery}
    context = _page_context(session, user, created=created)
    return render(request, "interviewer.html", context, status_code=201, block=_block(request))


def _block(request: Request) -> str | None:
    """htmx swaps just the dashboard body; a plain form post gets the whole page."""
    return "dashboard_body" if is_htmx(request) else None

