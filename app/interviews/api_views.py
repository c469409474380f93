"""The interview object of the JSON API (CONTRACTS.md section 2), for interviewers and admins."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.interviews.summary import InterviewSummary


def iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def interview_view(summary: InterviewSummary) -> dict[str, Any]:
    record, interview = summary.record, summary.record.interview
    return {
        "id": interview.id,
        "state": summary.state.value,
        "candidate_email": interview.candidate_email,
        "scenario": record.slug,
        "version": record.version.version,
        "time_limit_minutes": interview.time_limit_minutes,
        "minutes_used": summary.minutes_used,
        "invite_expires_at": iso(interview.invite_expires_at),
        "started_at": iso(interview.started_at),
        "submitted_at": iso(interview.submitted_at),
        "revoked_at": iso(interview.revoked_at),
        "score": summary.score,
        "attempts": [
            {"id": e.attempt.id, "kind": e.attempt.kind, "status": e.attempt.status, "score": e.attempt.score,
             "created_at": iso(e.attempt.created_at),
             "bugs": [{"id": b.id, "fixed": b.fixed, "verifiable": b.verifiable}
                      for b in (e.result.bugs if e.result else [])]}
            for e in record.attempts
        ],
        "hints": [{"bug": h.bug_id, "level": h.level, "revealed_at": iso(h.revealed_at), "cost_points": h.cost_points}
                  for h in record.hints],
        "reviews": [r.to_api() for r in summary.reviews],
        "signals": [s.to_api() for s in summary.signals],
    }
