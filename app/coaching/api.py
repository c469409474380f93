"""JSON API for coaching: candidates rate the tips of their own attempts."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, ConfigDict

from app.auth.deps import CurrentUser, SessionDep
from app.coaching import ratings
from app.http.params import RowIdPath

router = APIRouter(prefix="/api/tips", tags=["coaching"])


class RatingIn(BaseModel):
    """POST /api/tips/{id}/rating: was the tip helpful?"""

    model_config = ConfigDict(extra="forbid", strict=True)

    helpful: bool


class RatingOut(BaseModel):
    id: int
    helpful: bool


@router.post("/{tip_id}/rating", response_model=RatingOut)
def rate_tip(tip_id: RowIdPath, body: RatingIn, user: CurrentUser, session: SessionDep) -> RatingOut:
    """Mark a tip helpful or not (again: the new verdict replaces the old); only the attempt's candidate may."""
    try:
        rating = ratings.rate_tip(session=session, user=user, tip_id=tip_id, helpful=body.helpful)
    except ratings.RatingRefused as exc:
        session.rollback()
        raise HTTPException(exc.status_code, exc.detail) from None
    session.commit()
    return RatingOut(id=tip_id, helpful=rating.helpful)
