"""Reviews: each interviewer's rubric scores, private notes and decision on an interview.

One review per interviewer per interview (saving again updates it). Reviews are for interviewers and
admins only; nothing here is ever shown to the candidate.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.interviews import rubric as rubric_module
from app.interviews.errors import InterviewError
from app.interviews.models import Decision, Interview, Review
from app.interviews.rubric import Criterion
from app.site import service as site_service
from app.users.models import User

log = logging.getLogger(__name__)

MAX_NOTES = 20_000
DECISION_LABELS = {
    Decision.undecided.value: "Undecided",
    Decision.strong_no_hire.value: "Strong no hire",
    Decision.no_hire.value: "No hire",
    Decision.hire.value: "Hire",
    Decision.strong_hire.value: "Strong hire",
}


@dataclass(frozen=True)
class ReviewView:
    """A review with its reviewer's email, for pages, the API and exports."""

    id: int
    reviewer_id: int
    reviewer_email: str
    scores: dict[str, int]
    decision: str
    notes: str
    updated_at: datetime

    @property
    def decision_label(self) -> str:
        return DECISION_LABELS.get(self.decision, self.decision)


def rubric(*, session: Session) -> list[Criterion]:
    """The rubric interviewers score against now (the default when the stored one is unusable)."""
    stored = site_service.get(session=session, key=rubric_module.RUBRIC_KEY)
    try:
        return rubric_module.parse(stored)
    except InterviewError:
        log.warning("stored review rubric is invalid; using the default")
        return rubric_module.parse(rubric_module.DEFAULT_RUBRIC)


def save_rubric(*, session: Session, criteria: Sequence[Mapping[str, object]], by: User) -> list[Criterion]:
    """Validate and store the default rubric (flushed); InterviewError names what is wrong.

    `criteria` is unchecked input in the stored shape (a list of dicts, the id optional); `rubric.parse` checks it.
    """
    parsed = rubric_module.parse(criteria)
    site_service.put(session=session, key=rubric_module.RUBRIC_KEY, value=rubric_module.to_stored(parsed), by=by)
    return parsed


def _clean_scores(scores: Mapping[str, object], criteria: list[Criterion]) -> dict[str, int]:
    known = {c.id for c in criteria}
    clean: dict[str, int] = {}
    for key, value in scores.items():
        if key not in known:
            raise InterviewError(f"Unknown rubric criterion {str(key)[:40]!r}: use one of {', '.join(sorted(known))}.")
        if isinstance(value, bool) or not isinstance(value, int) or value not in rubric_module.LEVELS:
            raise InterviewError(f"Score each criterion from 1 to 4 ({key} was {str(value)[:20]!r}).")
        clean[key] = value
    return clean


def save_review(
    *, session: Session, interview: Interview, reviewer: User, scores: Mapping[str, object], decision: str, notes: str,
) -> Review:
    """Create or update this reviewer's review (flushed, not committed)."""
    clean = _clean_scores(scores, rubric(session=session))
    if decision not in DECISION_LABELS:
        raise InterviewError(f"Choose a decision: {', '.join(DECISION_LABELS)}.")
    if len(notes) > MAX_NOTES:
        raise InterviewError(f"Notes are limited to {MAX_NOTES} characters.")
    review = session.scalar(
        select(Review).where(Review.interview_id == interview.id, Review.reviewer_id == reviewer.id))
    if review is None:
        review = Review(interview_id=interview.id, reviewer_id=reviewer.id)
        session.add(review)
    review.rubric_scores = clean
    review.decision = decision
    review.notes = notes
    review.updated_at = utcnow()
    session.flush()
    return review


def reviews_of(*, session: Session, interview_ids: list[int]) -> dict[int, list[ReviewView]]:
    """interview id -> its reviews, oldest first."""
    rows = session.execute(
        select(Review, User.email).join(User, User.id == Review.reviewer_id)
        .where(Review.interview_id.in_(interview_ids)).order_by(Review.created_at, Review.id)
    ).all()
    found: dict[int, list[ReviewView]] = {i: [] for i in interview_ids}
    for review, email in rows:
        found[review.interview_id].append(ReviewView(
            id=review.id, reviewer_id=review.reviewer_id, reviewer_email=email,
            scores={k: int(v) for k, v in (review.rubric_scores or {}).items()}, decision=review.decision,
            notes=review.notes, updated_at=review.updated_at))
    return found
