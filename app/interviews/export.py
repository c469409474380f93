"""The CSV of all interviews a user may see, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from app.attempts.points import points
from app.interviews.summary import InterviewSummary

COLUMNS = ("interview", "candidate", "challenge", "scenario", "version", "state", "created", "time_limit_minutes",
           "minutes_used", "attempts", "points", "bugs_fixed", "bugs_total", "hints", "hint_cost_points",
           "decisions", "signals")
# A cell starting with one of these is a formula to Excel, LibreOffice and Google Sheets.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def safe_cell(value: object) -> object:
    """Numbers as they are; text that a spreadsheet would run as a formula gets a leading apostrophe."""
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def row_of(summary: InterviewSummary) -> list[object]:
    record, interview = summary.record, summary.record.interview
    decisions = "; ".join(f"{r.reviewer_email}: {r.decision_label}" for r in summary.reviews
                          if r.decision != "undecided")
    return [
        interview.id, interview.candidate_email, record.version.title, record.slug, record.version.version,
        summary.state.value, interview.created_at.strftime("%Y-%m-%d %H:%M"), interview.time_limit_minutes,
        summary.minutes_used, summary.attempt_count,
        points(summary.score),  # out of 100, as on every page and in the JSON's `points`
        summary.bugs_fixed, summary.bug_total, summary.hints, record.hint_cost, decisions,
        # Evidence to look at, never a verdict: each raised signal is named as one.
        "; ".join(f"signal: {s.title}" for s in summary.raised_signals),
    ]


def to_csv(summaries: Iterable[InterviewSummary]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for summary in summaries:
        writer.writerow([safe_cell(cell) for cell in row_of(summary)])
    return out.getvalue()
