"""Points: the one unit a score is shown in, on every page, in the CSV and in the JSON API.

A grading stores `score` as a fraction (0..1, Attempt.score); people read points out of POINTS_TOTAL,
the unit hint costs are priced in too. Everything shown converts here, rounded to one decimal.
"""

from __future__ import annotations

POINTS_TOTAL = 100


def points(score: float | None) -> float | None:
    """A stored score (0..1) as points out of POINTS_TOTAL, or None before a graded submission."""
    return None if score is None else round(score * POINTS_TOTAL, 1)


def points_text(value: float | None) -> str:
    """Points as a person reads them: "75", "42.5", "—" when there are none."""
    return "—" if value is None else f"{value:g}"
