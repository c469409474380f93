"""Bodies and responses of the live interview's API (CONTRACTS.md section 2)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.interviews.schemas import InterviewOut


class SayBody(BaseModel):
    """POST /api/interviews/{id}/notes and /messages."""

    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(min_length=1, max_length=4000)


class Said(BaseModel):
    """A note or message as created: its id and its second on the interview clock."""

    id: int
    seconds: int


class NoteOut(BaseModel):
    """A private note (interviewers and admins only)."""

    id: int
    text: str
    seconds: int = Field(description="On the interview clock: seconds since the candidate started.")
    author: str
    created_at: str


class InterviewWithNotes(InterviewOut):
    """GET /api/interviews/{id}: the interview, its private notes and the messages sent to the candidate."""

    notes: list[NoteOut]
    messages: list[NoteOut]
