"""Request bodies of the interviews API."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class InterviewCreate(BaseModel):
    """POST /api/interviews."""

    model_config = ConfigDict(extra="forbid", strict=True)

    candidate_email: str = Field(min_length=3, max_length=254)
    scenario: str = Field(min_length=1, max_length=80)
    time_limit_minutes: int = Field(default=60, ge=5, le=480)
    valid_days: int = Field(default=7, ge=1, le=30)


class ReviewCreate(BaseModel):
    """POST /api/interviews/{id}/reviews: scores 1-4 by criterion id, a decision, private notes."""

    model_config = ConfigDict(extra="forbid", strict=True)

    rubric: dict[str, int] = Field(default_factory=dict, max_length=20)
    decision: str = Field(default="undecided", max_length=40)
    notes: str = Field(default="", max_length=20_000)


class InviteRedeem(BaseModel):
    """POST /api/invites/{token}: a password for a new account (omit it when sending a bearer token)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    password: str | None = Field(default=None, max_length=256)


class RubricLevel(BaseModel):
    """One level of a criterion: its score and what earns it."""

    level: int = Field(ge=1, le=4)
    description: str


class RubricCriterion(BaseModel):
    """A criterion a review scores: `id` is the key in a review's `rubric` object."""

    id: str
    title: str
    levels: list[RubricLevel]


class RubricView(BaseModel):
    """GET /api/rubric: the criteria reviews are scored against now, in the order the review page shows them."""

    criteria: list[RubricCriterion]
