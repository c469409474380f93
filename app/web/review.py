"""The interview review page: timeline, attempts, playback, signals, reviews; and its printable report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.auth.deps import SessionDep
from app.http.params import MAX_ROW_ID, RowIdPath
from app.http.templating import PageContext, is_htmx, render
from app.interviews import access, reviews
from app.interviews.deps import ReviewerUser
from app.interviews.invites import Delivery
from app.interviews.live.view import LiveView, live_view
from app.interviews.models import Interview
from app.interviews.playback import Playback, build_playback
from app.interviews.record import CELL_LABELS, AttemptEntry, InterviewRecord, build_record
from app.interviews.reviews import ReviewView
from app.interviews.rubric import Criterion
from app.interviews.signals.detect import signals_for
from app.interviews.signals.model import Signal, clock
from app.interviews.state import deadline
from app.users.models import User
from app.workspace import results

router = APIRouter(prefix="/interviewer/interviews", tags=["pages"], include_in_schema=False)

FrameQuery = Annotated[int | None, Query(ge=0, le=MAX_ROW_ID)]


def minutes(delta: Any) -> str:
    """"12 min" (or "1 h 05 min") for a timedelta; an em dash for None."""
    if delta is None:
        return "—"
    total = int(delta.total_seconds() // 60)
    return f"{total // 60} h {total % 60:02d} min" if total >= 60 else f"{total} min"


@dataclass(frozen=True)
class ReviewPage(PageContext):
    """Everything the review page and the printable report render."""

    record: InterviewRecord
    interview: Interview
    signals: list[Signal]
    reviews: list[ReviewView]
    my_review: ReviewView | None
    rubric: list[Criterion]
    decisions: Mapping[str, str]
    playback: Playback
    can_manage: bool
    reviewers: list[User]
    deadline: datetime | None
    # The workspace's own Results panel (curves, influence maps, tips), in its staff view, per attempt id.
    panels: dict[int, results.ResultsView]
    # What an action or a save says back (each None/False when there is nothing to say).
    review_saved: bool = False
    review_error: str | None = None
    action_error: str | None = None
    notice: str | None = None
    new_invite: Delivery | None = None
    email_enabled: bool = False
    latest: AttemptEntry | None = None  # the report's latest submission
    live: LiveView | None = None  # follow mode, private notes, messages (app/interviews/live)

    def as_context(self) -> dict[str, object]:
        # the templates' labels and formatting helpers ride along with the values
        return {**super().as_context(), "cell_labels": CELL_LABELS, "clock": clock, "minutes": minutes}


def review_context(
    session: SessionDep, user: User, interview_id: int, *, at: int | None = None, details: bool = True,
) -> ReviewPage:
    """Everything the page and the report render."""
    interview = access.visible_interview(session=session, user=user, interview_id=interview_id)
    record = build_record(session=session, interview=interview, with_details=details)
    all_reviews = reviews.reviews_of(session=session, interview_ids=[interview.id])[interview.id]
    return ReviewPage(
        record=record,
        interview=interview,
        signals=signals_for(session=session, record=record, viewer=user),
        reviews=all_reviews,
        my_review=next((r for r in all_reviews if r.reviewer_id == user.id), None),
        rubric=reviews.rubric(session=session),
        decisions=reviews.DECISION_LABELS,
        playback=build_playback(session=session, interview=interview,
                                attempts=record.attempts, at=at),
        can_manage=access.can_manage(user, interview),
        reviewers=access.reviewers_of(session=session, interview=interview),
        deadline=deadline(interview),
        panels={e.attempt.id: results.build_view(session=session, attempt=e.attempt, staff=True, number=e.number)
                for e in record.attempts if e.graded} if details else {},
        live=live_view(session=session, interview=interview, user=user),
    )


def render_review(request: Request, context: ReviewPage, *, status_code: int = 200,
                  block: str | None = None) -> Response:
    return render(request, "review/interview.html", context, status_code=status_code, block=block)


@router.get("/{interview_id}", name="interview_review")
def interview_review(
    request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep, at: FrameQuery = None,
) -> Response:
    """The whole review of one interview."""
    return render_review(request, review_context(session, user, interview_id, at=at))


@router.get("/{interview_id}/playback", name="interview_playback")
def interview_playback(
    request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep, at: FrameQuery = None,
) -> Response:
    """One moment of the playback: the slider's htmx fragment, or the whole page at that moment."""
    context = review_context(session, user, interview_id, at=at, details=not is_htmx(request))
    return render_review(request, context, block="playback" if is_htmx(request) else None)


@router.get("/{interview_id}/report", name="interview_report")
def interview_report(request: Request, interview_id: RowIdPath, user: ReviewerUser, session: SessionDep) -> Response:
    """A printable report (print stylesheet): summary, timeline, latest submission, signals, reviews."""
    context = review_context(session, user, interview_id, details=True)
    return render(request, "review/report.html", replace(context, latest=context.record.latest_submit))
