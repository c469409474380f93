"""Request and response bodies of the attempts API."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class AttemptCreate(BaseModel):
    """POST /api/attempts: files left out are the starter's."""

    model_config = ConfigDict(extra="forbid", strict=True)

    scenario: str = Field(min_length=1, max_length=80)
    files: dict[str, str] = Field(default_factory=dict)
    kind: Literal["run", "submit", "scratch"] = "submit"
    notes: dict[str, str] = Field(default_factory=dict)
    interview: int | None = Field(default=None, ge=1, le=2**63 - 1)  # a row id: 64 bits at most


class AttemptQueued(BaseModel):
    id: int
    status: Literal["queued"] = "queued"


class AttemptCancelled(BaseModel):
    id: int
    status: Literal["cancelled"] = "cancelled"
