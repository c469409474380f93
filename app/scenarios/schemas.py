"""Response models of the scenarios JSON API (CONTRACTS.md section 2); field order is the JSON's key order."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ScenarioCard(BaseModel):
    """GET /api/scenarios: one published scenario of the catalogue."""

    slug: str
    title: str
    difficulty: str
    version: int
    components: list[str]
    interface: str  # added after the first contract: the challenge interface, "gpt-v1" or "llama-v1"


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


class ValidationJobSummary(BaseModel):
    """A finished validation: whether the package is valid, how many problems, whether the report was
    kept on the version (not when the draft changed meanwhile)."""

    valid: bool
    problems: int
    stored: bool


class RejudgeJobSummary(BaseModel):
    """A finished rejudge: how many attempts it graded again and which of them changed verdict."""

    attempts: int
    changed: int
    changed_attempts: list[int]


JobSummary = ValidationJobSummary | RejudgeJobSummary


class JobProgress(BaseModel):
    """A validation or rejudge job as the admin pages and the authoring API show it."""

    id: int
    kind: str
    status: str  # queued | running | done | failed
    done: int
    total: int
    current: str
    summary: JobSummary | None  # the finished job's, its shape per kind
    error: str | None
    finished: bool


class BugDetectedOut(BaseModel):
    id: str
    detected_by: list[str]


class MaskingOut(BaseModel):
    bugs: list[str]
    tests_passing_together: list[str]
    pair_fails_nothing: bool


class ValidationOut(BaseModel):
    valid: bool
    current: bool  # made for the version's present content
    bugs: list[BugDetectedOut]
    problems: list[str]
    warnings: list[str]
    masking: list[MaskingOut]
    # [a, b]: every test that catches bug a also catches bug b, so a fix of a alone cannot be credited
    # while b remains; publishing then needs {"without_per_bug_credit": true}
    shared_tests: list[list[str]] = Field(default_factory=list)


class VersionOut(BaseModel):
    """A version as the authoring API shows it: status, validation report (or null), latest jobs by kind."""

    slug: str
    version: int
    status: str
    title: str
    content_hash: str
    validation: ValidationOut | None
    jobs: dict[str, JobProgress | None]
    comment_warnings: list[str] = Field(default_factory=list)  # planted text whose comments name the bug


class UploadedOut(BaseModel):
    slug: str
    version: int
    status: str
