"""What interviewers do on the review page: save a review; owners also manage the invite and sharing.

Every action answers with the review page (or, for htmx, the panel it changed), with the error shown
in place when it was refused; nothing typed is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from app.auth.deps import SessionDep
from app.http.params import RowIdPath
from app.http.templating import is_htmx
from app.interviews import access, invites, mail, reviews
from app.interviews.deps import ReviewerUser
from app.interviews.errors import InterviewError
from app.interviews.invites import Delivery
from app.interviews.models import Interview
from app.users.models import User
from app.web.review import render_review, review_context

router = APIRouter(prefix="/interviewer/interviews", tags=["pages"], include_in_schema=False)

SmallInt = Annotated[int, Form(ge=0, le=10_000)]


def _scores(form: Any) -> dict[str, int | str]:
    """score_<criterion> fields -> {criterion: level}; a non-number is passed on for the service to refuse."""
    out: dict[str, int | str] = {}
    for key, value in form.multi_items():
        if key.startswith("score_") and value != "":
            out[key.removeprefix("score_")] = int(value) if str(value).isdigit() else str(value)
    return out


@router.post("/{interview_id}/review", name="save_interview_review")
async def save_interview_review(
    request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep,
) -> Response:
    """Save this interviewer's rubric scores, decision and private notes."""
    form = await request.form()
    interview = access.visible_interview(session=session, user=user, interview_id=interview_id)
    block = "review_panel" if is_htmx(request) else None
    try:
        reviews.save_review(session=session, interview=interview, reviewer=user, scores=_scores(form),
                            decision=str(form.get("decision", "undecided")), notes=str(form.get("notes", "")))
    except InterviewError as exc:
        session.rollback()
        context = replace(review_context(session, user, interview_id, details=block is None), review_error=str(exc))
        return render_review(request, context, status_code=exc.status_code, block=block)
    session.commit()
    context = replace(review_context(session, user, interview_id, details=block is None), review_saved=True)
    return render_review(request, context, block=block)


@dataclass(frozen=True)
class ActionDone:
    """What an owner's action says back on the page."""

    notice: str | None = None
    new_invite: Delivery | None = None
    email_enabled: bool = False


def _managed(request: Request, session: SessionDep, user: User, interview_id: int,
             action: Callable[[Interview], ActionDone]) -> Response:
    """Run an owner's action; the page shows what happened, or why it was refused."""
    interview = access.managed_interview(session=session, user=user, interview_id=interview_id)
    try:
        done = action(interview)
    except InterviewError as exc:
        session.rollback()
        context = replace(review_context(session, user, interview_id), action_error=str(exc))
        return render_review(request, context, status_code=exc.status_code)
    session.commit()
    return render_review(request, replace(review_context(session, user, interview_id), notice=done.notice,
                                          new_invite=done.new_invite, email_enabled=done.email_enabled))


@router.post("/{interview_id}/invite", name="resend_invite")
def resend_invite(request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep) -> Response:
    """A new invite link (the old stops working): emailed when SMTP is set, else shown once."""
    def action(interview: Interview) -> ActionDone:
        token = invites.reissue(session=session, interview=interview)
        url = str(request.url_for("invite_page", token=token))
        return ActionDone(new_invite=invites.deliver(session=session, interview=interview, invite_url=url),
                          email_enabled=mail.enabled())
    return _managed(request, session, user, interview_id, action)


@router.post("/{interview_id}/revoke", name="revoke_interview")
def revoke_interview(request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep) -> Response:
    """Withdraw the interview: the invite and the workspace refuse from now on."""
    def action(interview: Interview) -> ActionDone:
        invites.revoke(session=session, interview=interview)
        return ActionDone(notice="The interview is revoked: the invite link and the workspace no longer work.")
    return _managed(request, session, user, interview_id, action)


@router.post("/{interview_id}/extend", name="extend_interview")
def extend_interview(
    request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep,
    invite_days: SmallInt = 0, extra_minutes: SmallInt = 0,
) -> Response:
    """More days for the invite, or more minutes for the candidate."""
    def action(interview: Interview) -> ActionDone:
        invites.extend(session=session, interview=interview, invite_days=invite_days, extra_minutes=extra_minutes)
        return ActionDone(notice="Extended.")
    return _managed(request, session, user, interview_id, action)


@router.post("/{interview_id}/reviewers", name="share_interview")
def share_interview(
    request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep,
    email: Annotated[str, Form(max_length=254)] = "",
) -> Response:
    """Let another interviewer read and review this interview."""
    def action(interview: Interview) -> ActionDone:
        shared = access.share(session=session, interview=interview, email=email)
        return ActionDone(notice=f"Shared with {shared.email}.")
    return _managed(request, session, user, interview_id, action)


@router.post("/{interview_id}/reviewers/{user_id}/remove", name="unshare_interview")
def unshare_interview(
    request: Request, interview_id: RowIdPath, user_id: RowIdPath, user: ReviewerUser, session: SessionDep,
) -> Response:
    """Stop sharing with one interviewer (their review stays)."""
    def action(interview: Interview) -> ActionDone:
        access.unshare(session=session, interview=interview, user_id=user_id)
        return ActionDone(notice="No longer shared.")
    return _managed(request, session, user, interview_id, action)
