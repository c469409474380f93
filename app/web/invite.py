"""Invite links: a candidate opens the link, sets a password (or signs in), then waits in the lobby.

A candidate who already had an account is named on the interview from the start; opening its workspace
before accepting leads to /invite/interviews/{id}, which asks them to accept it (no link needed).
Accepting leads to the lobby (/invite/interviews/{id}/lobby): the challenge, its brief and the time
limit, and a Start button; the clock starts there (or with the first attempt an API client posts).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from app.auth import sessions
from app.auth.deps import CurrentUser, OptionalUser, SessionDep
from app.auth.login import password_guard
from app.auth.rate_limit import LoginThrottled
from app.engine.package import ScenarioPackage
from app.http.params import RowIdPath
from app.http.templating import render
from app.interviews import invites
from app.interviews import service as interviews_service
from app.interviews.errors import InterviewError
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.web.errors import error_page
from app.web.markdown import render_markdown

router = APIRouter(prefix="/invite", tags=["pages"], include_in_schema=False)


def _challenge_title(session: SessionDep, interview: Interview) -> str:
    version = session.get(ScenarioVersion, interview.scenario_version_id)
    return version.title if version else ""


def _invite_context(request: Request, session: SessionDep, token: str, user: OptionalUser) -> dict[str, object]:
    interview = interviews_service.find_invite(session=session, token=token)
    return {
        "accept_url": request.url_for("accept_invite", token=token),
        "interview": interview,
        "challenge_title": _challenge_title(session, interview),
        "needs_sign_in": user is None and interviews_service.invite_needs_sign_in(session=session, interview=interview),
        "sign_in_url": str(request.url_for("sign_in_page").include_query_params(
            next=request.app.url_path_for("invite_page", token=token))),
        "wrong_account": user is not None and user.email != interview.candidate_email,
    }


@router.get("/{token}", name="invite_page")
def invite_page(request: Request, token: str, session: SessionDep, user: OptionalUser) -> Response:
    """Show the invite: set a password, sign in first, or accept as the signed-in candidate."""
    try:
        context = _invite_context(request, session, token, user)
    except interviews_service.InviteError as exc:
        return error_page(request, exc.status_code, str(exc))
    return render(request, "invite.html", context)


@router.post("/{token}", name="accept_invite")
def accept_invite(
    request: Request,
    token: str,
    session: SessionDep,
    user: OptionalUser,
    password: Annotated[str, Form()] = "",
    password_confirm: Annotated[str, Form()] = "",
) -> Response:
    """Redeem the invite in one transaction, then sign the candidate in."""
    guard = None
    try:
        # Unknown, used or expired links fail here, before anything else.
        interview = interviews_service.find_invite(session=session, token=token)
        interview_id = interview.id
        if user is None:  # a password is set: counted in the invited account's sign-in windows
            guard = password_guard(request, interview.candidate_email)
            guard.check()
        if user is None and password != password_confirm:
            raise interviews_service.InviteError("The two passwords do not match.", 422)
        candidate = interviews_service.redeem_invite(session=session, token=token, password=password, signed_in=user)
    except LoginThrottled as exc:
        context = {**_invite_context(request, session, token, user), "error": exc.message}
        response = render(request, "invite.html", context, status_code=429)
        response.headers.update(exc.headers)
        return response
    except interviews_service.InviteError as exc:
        session.rollback()
        if guard is not None:
            guard.failed()
        if exc.status_code == 422:
            context = {**_invite_context(request, session, token, user), "error": str(exc)}
            return render(request, "invite.html", context, status_code=422)
        return error_page(request, exc.status_code, str(exc))
    session.commit()
    sessions.start_session(request, candidate)
    # To the lobby: the clock starts when the candidate presses Start, not when the password is set.
    return RedirectResponse(_lobby_url(request, interview_id), status_code=303)


def _workspace_url(request: Request, interview_id: int) -> str:
    return str(request.url_for("interview_workspace", interview_id=interview_id))


def _lobby_url(request: Request, interview_id: int) -> str:
    return str(request.url_for("interview_lobby", interview_id=interview_id))


def lobby_redirect(request: Request, session: SessionDep, user: CurrentUser, interview_id: int) -> Response | None:
    """The workspace's first step: to the lobby while the candidate has not pressed Start, else None."""
    interview = session.get(Interview, interview_id)
    if interview is not None and invites.waits_in_lobby(interview, user):
        return RedirectResponse(_lobby_url(request, interview_id), status_code=303)
    return None


@router.get("/interviews/{interview_id}/lobby", name="interview_lobby")
def interview_lobby(request: Request, interview_id: RowIdPath, session: SessionDep, user: CurrentUser) -> Response:
    """Before the clock: the challenge, its brief and the time limit, and a Start button."""
    try:
        interview = invites.accepted_interview(session=session, interview_id=interview_id, user=user)
    except InterviewError as exc:
        return error_page(request, exc.status_code, str(exc))
    if not invites.waits_in_lobby(interview, user):
        return RedirectResponse(_workspace_url(request, interview_id), status_code=303)
    version = session.get(ScenarioVersion, interview.scenario_version_id)
    package = ScenarioPackage.from_dict(version.content) if version else None
    return render(request, "lobby.html", {
        "interview": interview, "challenge_title": version.title if version else "",
        "summary": version.summary if version else "", "difficulty": version.difficulty if version else "",
        "brief_html": render_markdown(package.brief, top_level=3) if package else "",
        "files": list(package.files) if package else [],
        "start_url": request.url_for("start_interview_page", interview_id=interview_id),
    })


@router.post("/interviews/{interview_id}/start", name="start_interview_page")
def start_interview_page(request: Request, interview_id: RowIdPath, session: SessionDep,
                         user: CurrentUser) -> Response:
    """Start pressed: the clock starts now, and the workspace opens."""
    try:
        interview = invites.accepted_interview(session=session, interview_id=interview_id, user=user)
        invites.start_interview(session=session, interview=interview)
    except InterviewError as exc:
        session.rollback()
        return error_page(request, exc.status_code, str(exc))
    session.commit()
    return RedirectResponse(_workspace_url(request, interview_id), status_code=303)


@router.get("/interviews/{interview_id}", name="pending_invite_page")
def pending_invite_page(request: Request, interview_id: RowIdPath, session: SessionDep, user: CurrentUser) -> Response:
    """The signed-in candidate's invite, not accepted yet: what it is and a button to accept it."""
    accepted = session.get(Interview, interview_id)
    if accepted is not None and accepted.candidate_id == user.id and accepted.invite_used_at is not None \
            and accepted.revoked_at is None:
        return RedirectResponse(_workspace_url(request, interview_id), status_code=303)
    interview = interviews_service.own_pending_invite(session=session, interview_id=interview_id, user=user)
    return render(request, "invite.html", {
        "accept_url": request.url_for("accept_pending_invite", interview_id=interview_id), "interview": interview,
        "challenge_title": _challenge_title(session, interview), "needs_sign_in": False, "wrong_account": False,
    })


@router.post("/interviews/{interview_id}", name="accept_pending_invite")
def accept_pending_invite(request: Request, interview_id: RowIdPath, session: SessionDep,
                          user: CurrentUser) -> Response:
    """Accept the invite as the signed-in candidate it names; the clock starts in the lobby, with Start."""
    interview = interviews_service.own_pending_invite(session=session, interview_id=interview_id, user=user)
    interviews_service.accept_own_invite(session=session, interview=interview)
    session.commit()
    return RedirectResponse(_lobby_url(request, interview_id), status_code=303)
