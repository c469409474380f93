"""Coaching pages: rating a tip from a form, the admin's ratings per rule, the printable coaching reports."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from sqlalchemy import select
from starlette.responses import RedirectResponse, Response

from app.auth.deps import AdminUser, CurrentUser, SessionDep
from app.coaching import ratings, report, service
from app.coaching.models import AI_NOTICE
from app.http.navigation import dashboard_url, safe_next
from app.http.params import RowIdPath
from app.http.templating import is_htmx, render
from app.interviews import access as interview_access
from app.interviews.models import Interview
from app.scenarios.models import Scenario

router = APIRouter(tags=["pages"], include_in_schema=False)

TIP_TEMPLATE = "coaching/_tip.html"


@router.post("/tips/{tip_id}/rating", name="rate_tip_form")
def rate_tip_form(
    request: Request, tip_id: RowIdPath, user: CurrentUser, session: SessionDep,
    helpful: Annotated[str, Form()] = "", next_url: Annotated[str, Form(alias="next")] = "",
) -> Response:
    """The rating buttons under a tip: htmx gets the tip again, a plain form goes back to its page."""
    if helpful not in ("true", "false"):
        raise HTTPException(422, "Choose Helpful or Not helpful.")
    try:
        tip, attempt = ratings.ratable_tip(session=session, user=user, tip_id=tip_id)
        ratings.store_rating(session=session, user=user, tip=tip, helpful=helpful == "true")
    except ratings.RatingRefused as exc:
        session.rollback()
        raise HTTPException(exc.status_code, exc.detail) from None
    session.commit()
    back = safe_next(next_url)
    if is_htmx(request):
        shown = next(t for t in service.tips_of(session=session, attempt_id=attempt.id) if t["id"] == tip.id)
        context = {"tip": shown, "attempt": attempt, "next_url": back, "rated_now": True}
        return render(request, TIP_TEMPLATE, context, block="tip")
    return RedirectResponse(f"{back}#tip-{tip.id}" if back else dashboard_url(request, user), status_code=303)


@router.get("/admin/coaching", name="admin_coaching")
def admin_coaching(request: Request, user: AdminUser, session: SessionDep) -> Response:
    """Candidates' ratings of the tips, aggregated per rule, the least helpful first."""
    return render(request, "coaching/admin_ratings.html", {"rows": ratings.ratings_by_rule(session=session)})


@router.get("/coaching/challenges/{slug}/report", name="challenge_report")
def challenge_report(request: Request, slug: str, user: CurrentUser, session: SessionDep) -> Response:
    """The signed-in user's coaching report over their practice attempts on one challenge."""
    title = session.scalar(select(Scenario.title).where(Scenario.slug == slug[:80]))
    if title is None:
        raise HTTPException(404, "There is no challenge with that name.")
    attempts = report.practice_attempts(session=session, user_id=user.id, slug=slug)
    built = report.build_report(session=session, title=title, attempts=attempts)
    return render(request, "coaching/report.html", {"report": built, "scope": "challenge", "notice": AI_NOTICE})


@router.get("/coaching/interviews/{interview_id}/report", name="interview_report")
def interview_report(request: Request, interview_id: RowIdPath, user: CurrentUser, session: SessionDep) -> Response:
    """The coaching report of one interview: for its candidate, and for whoever may read the interview
    by the rule every interview page uses (its interviewer and the reviewers it is shared with, while they
    are interviewers; admins). A demoted interviewer is refused as on those pages."""
    interview = session.get(Interview, interview_id)
    allowed = interview is not None and (
        interview.candidate_id == user.id or interview_access.can_view(session=session, user=user, interview=interview))
    if interview is None or not allowed:
        raise HTTPException(404, "There is no interview with that id.")
    attempts = report.interview_attempts(session=session, interview_id=interview_id)
    title = f"Interview {interview_id}"
    built = report.build_report(session=session, title=title, attempts=attempts)
    return render(request, "coaching/report.html", {"report": built, "scope": "interview", "notice": AI_NOTICE})
