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


# Responses. Field order is the JSON's key order; times are ISO 8601 strings made by api_views.iso.


class InterviewCreated(BaseModel):
    """POST /api/interviews: the new interview and its invite (emailed when SMTP_URL is set)."""

    id: int
    invite_url: str
    emailed: bool
    email_error: str | None


class InviteRedeemed(BaseModel):
    """POST /api/invites/{token}: a bearer token for the candidate and the interview it opens."""

    access_token: str
    token_type: str
    interview_id: int


class BugVerdictOut(BaseModel):
    id: str
    fixed: bool
    verifiable: bool
    verdict: str = Field(default="", description="fixed | not_fixed | cannot_tell (another bug still there fails or "
                         "hides the same tests; never scored) | not_verifiable")


class AttemptOut(BaseModel):
    id: int
    number: int = Field(default=0, description="The attempt's number in the interview (1, 2, 3 … over every kind, "
                        "scratch runs too): what the pages call Run 3 or Submit 4. `id` stays the key for URLs.")
    kind: str
    status: str
    score: float | None = Field(description="The score as a fraction, 0 to 1 (kept for older clients; read `points`).")
    points: float | None = Field(default=None, description="The score in points out of 100, one decimal: the unit "
                                 "pages, the CSV and hint costs (`cost_points`) use. Null before a grading.")
    created_at: str | None
    bugs: list[BugVerdictOut]


class HintOut(BaseModel):
    bug: str
    level: int
    revealed_at: str | None
    cost_points: float


class ReviewOut(BaseModel):
    """One reviewer's review; `rubric` holds scores 1-4 by criterion id."""

    id: int
    reviewer: str
    rubric: dict[str, int]
    decision: str
    notes: str
    updated_at: str


class EvidenceOut(BaseModel):
    text: str
    at_seconds: int | None  # since the interview started
    file: str | None
    line: int | None
    code: str | None


class SignalOut(BaseModel):
    kind: str
    title: str
    raised: bool
    summary: str
    note: str
    evidence: list[EvidenceOut]


class InterviewOut(BaseModel):
    """GET /api/interviews/{id}: the interview with its attempts, bug verdicts, reviews and signals."""

    id: int
    state: str
    candidate_email: str
    scenario: str
    version: int
    time_limit_minutes: int
    minutes_used: float | None
    invite_expires_at: str | None
    started_at: str | None
    submitted_at: str | None
    revoked_at: str | None
    score: float | None = Field(description="The latest graded submission's score, a fraction 0 to 1 (read `points`).")
    points: float | None = Field(default=None, description="The latest graded submission's score in points out of "
                                 "100, one decimal (the unit of pages, the CSV and `cost_points`).")
    attempts: list[AttemptOut]
    hints: list[HintOut]
    reviews: list[ReviewOut]
    signals: list[SignalOut]
