"""The default coach: deterministic rules over the knowledge base, run after every graded attempt."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.coaching.knowledge import (
    COMPONENT_ADVICE,
    ERROR_ADVICE,
    PRACTICES,
    TRAINING_RUN_ADVICE,
    TRAINING_RUN_TESTS,
    Advice,
)
from app.coaching.models import AI_NOTICE, CoachingTip
from app.grading.result import GradeError, GradeResult

SOURCE = "rules"
COMPONENT_ORDER = ("loss", "positional", "attention", "general", "training", "generation")
MAX_TIPS = 4


@dataclass(frozen=True)
class Tip:
    component: str | None
    framing: str
    pro_tip: str
    steps: tuple[str, ...]


def failing_components(result: GradeResult | None) -> list[str]:
    """Components with an applicable failing test outside the tiny training run, in teaching order."""
    failing = {t.component for t in (result.failing() if result else []) if t.id not in TRAINING_RUN_TESTS}
    return [c for c in COMPONENT_ORDER if c in failing]


def training_run_failed(result: GradeResult | None) -> bool:
    """True when a test of the tiny training run failed."""
    return any(t.id in TRAINING_RUN_TESTS for t in (result.failing() if result else []))


def missing_practices(notes: dict[str, Any] | None) -> list[str]:
    """Advice for each verification habit the candidate's notes do not mention."""
    text = " ".join(str(v) for v in (notes or {}).values()).lower()
    return [advice for _name, words, advice in PRACTICES if not any(w in text for w in words)]


def tips_for(*, status: str, result: GradeResult | None, error: GradeError | None,
             notes: dict[str, Any] | None) -> list[Tip]:
    """The tips for one graded attempt: errors first, then failing components, then the write-up."""
    tips: list[Tip] = []
    if status == "error" and error:
        advice = ERROR_ADVICE.get(error.kind)
        if advice is not None:
            tips.append(_tip(None, advice))
    for component in failing_components(result):
        tips.append(_tip(component, COMPONENT_ADVICE[component]))
    if training_run_failed(result):
        tips.append(_tip("training", TRAINING_RUN_ADVICE))
    habits = missing_practices(notes)
    if habits:
        tips.append(Tip(
            component=None,
            framing="Frame your write-up around how you know each fix is right, not only what you changed.",
            pro_tip="Interviewers score the method: a short test per component and a baseline comparison "
            "beat a long list of edits.",
            steps=tuple(habits[:5]) if len(habits) >= 3 else tuple(habits) + (
                "Keep each answer to a few sentences: symptom, test, root cause, fix.",
            ),
        ))
    return tips[:MAX_TIPS]


def _tip(component: str | None, advice: Advice) -> Tip:
    return Tip(component=component, framing=advice.framing, pro_tip=advice.pro_tip, steps=advice.steps[:5])


def coach_attempt(*, session: Session, attempt_id: int) -> list[CoachingTip]:
    """Replace the attempt's rule-based tips with fresh ones (idempotent; flushed, not committed)."""
    attempt = session.get(Attempt, attempt_id)
    if attempt is None or attempt.kind == "scratch":  # scratch runs are experiments, not graded work
        return []
    session.execute(delete(CoachingTip).where(CoachingTip.attempt_id == attempt_id, CoachingTip.source == SOURCE))
    rows = [
        CoachingTip(attempt_id=attempt_id, source=SOURCE, component=tip.component, framing=tip.framing,
                    pro_tip=tip.pro_tip, steps=list(tip.steps), notice=AI_NOTICE)
        for tip in tips_for(status=attempt.status, result=GradeResult.from_stored(attempt.result),
                            error=GradeError.model_validate(attempt.error) if attempt.error else None,
                            notes=attempt.notes)
    ]
    session.add_all(rows)
    session.flush()
    return rows


def tips_of(*, session: Session, attempt_id: int) -> list[dict[str, Any]]:
    """The stored tips of an attempt, as the API shows them."""
    rows = session.scalars(
        select(CoachingTip).where(CoachingTip.attempt_id == attempt_id).order_by(CoachingTip.id)
    ).all()
    return [
        {"component": r.component, "framing": r.framing, "pro_tip": r.pro_tip, "steps": list(r.steps),
         "source": r.source, "notice": r.notice}
        for r in rows
    ]
