"""JSON API for interviews (CONTRACTS.md section 2): create, read, review (and the rubric), export, redeem an invite."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Body, Request
from pydantic import BaseModel
from starlette.responses import Response

from app.auth import tokens
from app.auth.deps import CurrentUser, OptionalUser, SessionDep
from app.auth.login import password_guard
from app.http.params import RowIdPath
from app.interviews import access, export, invites, reviews
from app.interviews import service as interviews_service
from app.interviews.api_views import interview_view, review_out
from app.interviews.deps import ReviewerUser
from app.interviews.errors import InterviewError
from app.interviews.live.api import with_notes
from app.interviews.live.schemas import InterviewWithNotes
from app.interviews.rubric import LEVELS
from app.interviews.schemas import (
    InterviewCreate,
    InterviewCreated,
    InviteRedeem,
    InviteRedeemed,
    ReviewCreate,
    ReviewOut,
    RubricCriterion,
    RubricLevel,
    RubricView,
)
from app.interviews.summary import summarise
from app.scenarios import service as scenarios_service

router = APIRouter(prefix="/api", tags=["interviews"])


@router.post("/interviews", status_code=201, name="api_create_interview")
def create_interview(
    body: InterviewCreate, request: Request, user: ReviewerUser, session: SessionDep,
) -> InterviewCreated:
    """Create an interview; the invite link is returned (and emailed when SMTP_URL is set)."""
    version = scenarios_service.get_published(session=session, slug=body.scenario)
    if version is None:
        raise InterviewError(f"Unknown scenario {body.scenario[:80]!r}: use the slug of a published challenge.", 404)
    interview, token = interviews_service.create_interview(
        session=session, interviewer=user, candidate_email=body.candidate_email, scenario_version=version,
        time_limit_minutes=body.time_limit_minutes, expires_in=timedelta(days=body.valid_days),
    )
    session.commit()
    url = str(request.url_for("invite_page", token=token))
    delivery = invites.deliver(session=session, interview=interview, invite_url=url)
    session.commit()
    return InterviewCreated(id=interview.id, invite_url=url, emailed=delivery.emailed, email_error=delivery.error)


class InterviewStarted(BaseModel):
    """POST /api/interviews/{id}/start: when the clock started and when it runs out (ISO 8601, UTC)."""

    id: int
    started_at: str
    deadline: str
    time_limit_minutes: int


@router.post("/interviews/{interview_id}/start", name="api_start_interview")
def start_interview(interview_id: RowIdPath, user: CurrentUser, session: SessionDep) -> InterviewStarted:
    """The candidate starts the clock (the page's Start button; an attempt posted first starts it too).
    Starting again returns the first start; someone else's interview is 404, a revoked or ended one 409."""
    interview = invites.accepted_interview(session=session, interview_id=interview_id, user=user)
    started = invites.start_interview(session=session, interview=interview)
    session.commit()
    ends = started + timedelta(minutes=interview.time_limit_minutes)
    return InterviewStarted(id=interview.id, started_at=started.isoformat(), deadline=ends.isoformat(),
                            time_limit_minutes=interview.time_limit_minutes)


@router.get("/interviews.csv", name="api_interviews_csv")
def interviews_csv(user: ReviewerUser, session: SessionDep) -> Response:
    """Every interview this user may see, one row each."""
    rows = summarise(session=session, interviews=access.interviews_for(session=session, interviewer=user),
                     viewer=user)
    return Response(export.to_csv(rows), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": 'attachment; filename="interviews.csv"'})


@router.get("/interviews/{interview_id}", name="api_read_interview")
def read_interview(interview_id: RowIdPath, user: ReviewerUser, session: SessionDep) -> InterviewWithNotes:
    """The interview with its attempts, bug verdicts, reviews and integrity signals."""
    interview = access.visible_interview(session=session, user=user, interview_id=interview_id)
    out = interview_view(summarise(session=session, interviews=[interview], viewer=user)[0])
    return with_notes(out, session=session, interview_id=interview.id)  # private notes: staff only


@router.get("/rubric", name="api_rubric", response_model=RubricView)
def read_rubric(_user: ReviewerUser, session: SessionDep) -> RubricView:
    """The review rubric's criteria (ids, titles, each level's description) that a review's scores name."""
    return RubricView(criteria=[
        RubricCriterion(id=c.id, title=c.title, levels=[RubricLevel(level=level, description=text)
                                                        for level, text in zip(LEVELS, c.levels, strict=True)])
        for c in reviews.rubric(session=session)])


@router.post("/interviews/{interview_id}/reviews", status_code=201, name="api_review_interview")
def review_interview(
    interview_id: RowIdPath, body: ReviewCreate, user: ReviewerUser, session: SessionDep,
) -> ReviewOut:
    """Save this reviewer's rubric scores, decision and notes (one review per reviewer, updated in place)."""
    interview = access.visible_interview(session=session, user=user, interview_id=interview_id)
    review = reviews.save_review(session=session, interview=interview, reviewer=user, scores=body.rubric,
                                 decision=body.decision, notes=body.notes)
    session.commit()
    saved = reviews.reviews_of(session=session, interview_ids=[interview.id])[interview.id]
    return next(review_out(r) for r in saved if r.id == review.id)


@router.post("/invites/{token}", name="api_redeem_invite")
def redeem_invite(
    token: str, request: Request, session: SessionDep, user: OptionalUser,
    body: Annotated[InviteRedeem | None, Body()] = None,
) -> InviteRedeemed:
    """Redeem an invite once: a password makes a new account, a bearer token uses an existing one."""
    password = body.password if body else None
    guard = None
    if user is None:  # a password is set: counted in the invited account's sign-in windows (429 when full)
        guard = password_guard(request, interviews_service.find_invite(session=session, token=token).candidate_email)
        guard.check()
    try:
        candidate = interviews_service.redeem_invite(session=session, token=token, password=password, signed_in=user)
        interview = interviews_service.find_redeemed(session=session, token=token)
    except InterviewError:
        session.rollback()
        if guard is not None:
            guard.failed()
        raise
    access_token = tokens.issue_token(session=session, user=candidate)
    session.commit()
    return InviteRedeemed(access_token=access_token, token_type="bearer", interview_id=interview.id)
