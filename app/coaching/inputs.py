"""What the coach reads about one attempt: made by service.gather, read by the rules and the model adapter."""

from __future__ import annotations

from dataclasses import dataclass

from app.coaching.evidence import Evidence, ScenarioFacts
from app.coaching.history import History
from app.coaching.reading import NoteReading


@dataclass(frozen=True)
class CoachingInput:
    """Everything the coach reads about one attempt, gathered in one read."""

    attempt_id: int
    readings: list[NoteReading]
    evidence: Evidence
    history: History | None
    facts: ScenarioFacts
