"""Response models of the scenarios JSON API (CONTRACTS.md section 2); field order is the JSON's key order."""

from __future__ import annotations

from pydantic import BaseModel


class ScenarioCard(BaseModel):
    """GET /api/scenarios: one published scenario of the catalogue."""

    slug: str
    title: str
    difficulty: str
    version: int
    components: list[str]


class ScenarioQuestion(BaseModel):
    id: str
    text: str


class ScenarioDetail(BaseModel):
    """GET /api/scenarios/{slug}: what a candidate starts from; never the solution or hidden material."""

    slug: str
    title: str
    difficulty: str
    version: int
    brief: str
    files: dict[str, str]
    questions: list[ScenarioQuestion]
