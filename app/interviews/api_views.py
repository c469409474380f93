"""The interview object of the JSON API (CONTRACTS.md section 2), for interviewers and admins."""

from __future__ import annotations

from datetime import UTC, datetime

from app.attempts.points import points
from app.interviews.reviews import ReviewView
from app.interviews.schemas import (
    AttemptOut,
    BugVerdictOut,
    EvidenceOut,
    HintOut,
    InterviewOut,
    ReviewOut,
    SignalOut,
)
from app.interviews.signals.model import Signal
from app.interviews.summary import InterviewSummary


def iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def review_out(review: ReviewView) -> ReviewOut:
    return ReviewOut(id=review.id, reviewer=review.reviewer_email, rubric=dict(review.scores),
                     decision=review.decision, notes=review.notes, updated_at=review.updated_at.isoformat())


def signal_out(signal: Signal) -> SignalOut:
    return SignalOut(kind=signal.kind, title=signal.title, raised=signal.raised, summary=signal.summary,
                     note=signal.note, evidence=[
                         EvidenceOut(text=e.text, at_seconds=int(e.at.total_seconds()) if e.at is not None else None,
                                     file=e.file, line=e.line, code=e.code)
                         for e in signal.evidence])


def interview_view(summary: InterviewSummary) -> InterviewOut:
    record, interview = summary.record, summary.record.interview
    return InterviewOut(
        id=interview.id,
        state=summary.state.value,
        candidate_email=interview.candidate_email,
        scenario=record.slug,
        version=record.version.version,
        time_limit_minutes=interview.time_limit_minutes,
        minutes_used=summary.minutes_used,
        invite_expires_at=iso(interview.invite_expires_at),
        started_at=iso(interview.started_at),
        submitted_at=iso(interview.submitted_at),
        revoked_at=iso(interview.revoked_at),
        score=summary.score,
        points=points(summary.score),
        attempts=[
            AttemptOut(id=e.attempt.id, number=e.number, kind=e.attempt.kind, status=e.attempt.status,
                       score=e.attempt.score,
                       points=points(e.attempt.score),
                       created_at=iso(e.attempt.created_at),
                       bugs=[BugVerdictOut(id=b.id, fixed=b.fixed, verifiable=b.verifiable, verdict=b.verdict)
                             for b in (e.result.bugs if e.result else [])])
            for e in record.attempts
        ],
        hints=[HintOut(bug=h.bug_id, level=h.level, revealed_at=iso(h.revealed_at), cost_points=h.cost_points)
               for h in record.hints],
        reviews=[review_out(r) for r in summary.reviews],
        signals=[signal_out(s) for s in summary.signals],
    )
