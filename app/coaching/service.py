"""Coaching an attempt: gather its evidence, write the tips (rules, or a configured model), store them.

The three steps are separate so the worker can call a slow model between a read transaction and a
short write one (app/attempts/grading_job.py). `tips_of` is what the API, the pages and the interviewer
review read; its shape (app/coaching/tip.py: ShownTip) is kept stable.
"""

from __future__ import annotations

import logging

from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import Session, defer

from app.attempts.models import Attempt
from app.coaching import llm
from app.coaching.composer import compose, read_notes
from app.coaching.evidence import ScenarioFacts, cached_facts, evidence_for, facts_for
from app.coaching.history import history_of
from app.coaching.inputs import CoachingInput
from app.coaching.models import AI_NOTICE, CoachingTip, TipRating
from app.coaching.tip import ShownTip, Tip
from app.grading.result import GradeError, GradeResult
from app.scenarios.models import ScenarioVersion

log = logging.getLogger(__name__)

COACHED_STATUSES = ("passed", "failed", "error")


def gather(*, session: Session, attempt_id: int) -> CoachingInput | None:
    """The coaching input of a finished run or submit; None for scratch runs and unfinished attempts."""
    attempt = session.get(Attempt, attempt_id, options=[defer(Attempt.files), defer(Attempt.progress)])
    if attempt is None or attempt.kind == "scratch" or attempt.status not in COACHED_STATUSES:
        return None  # scratch runs are experiments, not graded work
    facts = scenario_facts(session=session, version_id=attempt.scenario_version_id)
    if facts is None:
        return None
    result = GradeResult.from_stored(attempt.result)
    error = GradeError.model_validate(attempt.error) if attempt.error else None
    evidence = evidence_for(attempt_kind=attempt.kind, status=attempt.status, result=result, error=error, facts=facts)
    readings = read_notes(attempt.notes, [q for q, _text in facts.questions])
    history = history_of(session=session, attempt=attempt, result=result)
    return CoachingInput(attempt_id=attempt_id, readings=readings, evidence=evidence, history=history, facts=facts)


def rule_tips(data: CoachingInput) -> list[Tip]:
    """The rule coach's tips (deterministic, offline, fast)."""
    return compose(readings=data.readings, evidence=data.evidence, history=data.history, guard=data.facts.guard)


def write_tips(data: CoachingInput) -> list[Tip]:
    """The configured model's tips when it answers validly, else the rules'."""
    rules = rule_tips(data)
    if llm.configured():
        answer = llm.model_tips(data=data, rule_tips=rules)
        if answer is not None:
            # Progress and habits come from the history, not from the model: the rules' block stays.
            history = [t for t in rules if t.rules and t.rules[0].startswith(("progress.", "habit."))]
            return answer + history
    return rules


def store_tips(*, session: Session, attempt_id: int, tips: list[Tip]) -> list[CoachingTip]:
    """Replace the attempt's tips (flushed, not committed)."""
    session.execute(delete(CoachingTip).where(CoachingTip.attempt_id == attempt_id))
    rows = [
        CoachingTip(attempt_id=attempt_id, source=tip.source, note=tip.note, component=tip.component,
                    framing=tip.framing, pro_tip=tip.pro_tip, steps=list(tip.steps), notice=AI_NOTICE,
                    rules=list(tip.rules), why=list(tip.why))
        for tip in tips
    ]
    session.add_all(rows)
    session.flush()
    return rows


def coach_attempt(*, session: Session, attempt_id: int) -> list[CoachingTip]:
    """Gather, write and store in one go (idempotent; flushed, not committed)."""
    data = gather(session=session, attempt_id=attempt_id)
    if data is None:
        return []
    return store_tips(session=session, attempt_id=attempt_id, tips=write_tips(data))


# Built once, columns only: the workspace polls an attempt's tips every 400 ms while it is graded,
# and building the statement, or an ORM object per tip, costs more than the query.
_TIPS = (
    select(CoachingTip.id, CoachingTip.note, CoachingTip.component, CoachingTip.framing, CoachingTip.pro_tip,
           CoachingTip.steps, CoachingTip.notice, CoachingTip.source, CoachingTip.rules, CoachingTip.why,
           TipRating.helpful)
    .outerjoin(TipRating, TipRating.tip_id == CoachingTip.id)
    .where(CoachingTip.attempt_id == bindparam("attempt_id"))
    .order_by(CoachingTip.id)
)


def tips_of(*, session: Session, attempt_id: int) -> list[ShownTip]:
    """The stored tips of an attempt, in display order, as the API and the pages show them."""
    rows = session.execute(_TIPS, {"attempt_id": attempt_id}).all()
    questions = _question_texts(session=session, attempt_id=attempt_id) if any(r.note for r in rows) else {}
    return [
        ShownTip(id=r.id, note=r.note, question=questions.get(r.note) if r.note else None,
                 component=r.component, framing=r.framing, pro_tip=r.pro_tip, steps=list(r.steps),
                 notice=r.notice, source=r.source, rules=list(r.rules or []), why=list(r.why or []),
                 rating=r.helpful)
        for r in rows
    ]


def scenario_facts(*, session: Session, version_id: int) -> ScenarioFacts | None:
    """The coach's facts of a scenario version; its (large) package is read only on a cache miss."""
    content_hash = session.scalar(select(ScenarioVersion.content_hash).where(ScenarioVersion.id == version_id))
    if content_hash is None:
        return None
    cached = cached_facts(content_hash)
    if cached is not None:
        return cached
    content = session.scalar(select(ScenarioVersion.content).where(ScenarioVersion.id == version_id))
    return facts_for(content or {}, content_hash)


def _question_texts(*, session: Session, attempt_id: int) -> dict[str, str]:
    version_id = session.scalar(select(Attempt.scenario_version_id).where(Attempt.id == attempt_id))
    facts = scenario_facts(session=session, version_id=version_id) if version_id is not None else None
    return dict(facts.questions) if facts else {}
