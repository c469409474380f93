"""The coaching report of one challenge (a candidate's practice) or one interview: printable, for the candidate.

Built from the attempts' notes, gradings and habits with the same readers the tips use: strengths,
what was verified and what was skipped, what to practise next. Like the tips, it never names a
bug, a test or a fix, and every sentence passes the scenario's leak guard.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts import numbers
from app.attempts.models import Attempt
from app.coaching.composer import read_notes
from app.coaching.evidence import Evidence, evidence_for
from app.coaching.kinds_knowledge import KIND_KNOWLEDGE
from app.coaching.knowledge import COMPONENT_NAMES
from app.coaching.methods_knowledge import METHOD_NAMES, METHOD_SUGGESTIONS
from app.coaching.service import scenario_facts
from app.grading.result import GradeResult
from app.scenarios.models import Scenario, ScenarioVersion

KEY_METHODS = ("unit-test-per-module", "overfit-one-batch", "baseline-comparison", "perturbation")


@dataclass(frozen=True)
class SubmitLine:
    attempt_id: int
    number: int  # the Submit's number in its workspace ("Submit 4"), as the candidate's History shows it
    version: int  # the challenge version it was made on: numbers start again on a new version
    at: datetime
    status: str
    fixed: tuple[int, int] | None
    failing: tuple[str, ...]  # component names


@dataclass
class CoachingReport:
    title: str
    submits: list[SubmitLine] = field(default_factory=list)
    runs: int = 0
    scratch_runs: int = 0
    versions: int = 1  # how many challenge versions the attempts span (the table names them when more than one)
    strengths: list[str] = field(default_factory=list)
    verified: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    practise: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.submits and not self.runs and not self.scratch_runs


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def build_report(*, session: Session, title: str, attempts: list[Attempt]) -> CoachingReport:
    """The report over these attempts (one candidate, one challenge), oldest first."""
    report = CoachingReport(title=title)
    attempts = sorted(attempts, key=lambda a: a.id)
    # practice_attempts and interview_attempts hold every attempt of each workspace they touch: count in memory.
    numbered = numbers.numbers_in_full(attempts)
    version_numbers = _version_numbers(session, {a.scenario_version_id for a in attempts})
    report.versions = len(version_numbers)
    report.runs = sum(a.kind == "run" for a in attempts)
    report.scratch_runs = sum(a.kind == "scratch" for a in attempts)
    methods: dict[str, str] = {}
    supported: dict[str, None] = {}
    contradicted: dict[str, None] = {}
    last_evidence: Evidence | None = None
    submits_without_run = 0
    since_submit_ran = False
    guard = None
    for attempt in attempts:
        if attempt.kind != "submit":
            since_submit_ran = since_submit_ran or attempt.kind in ("run", "scratch")
            continue
        facts = scenario_facts(session=session, version_id=attempt.scenario_version_id)
        if facts is None:
            continue
        guard = facts.guard
        result = GradeResult.from_stored(attempt.result)
        evidence = evidence_for(attempt_kind="submit", status=attempt.status, result=result, error=None, facts=facts)
        if attempt.status in ("passed", "failed", "error"):
            report.submits.append(SubmitLine(
                attempt.id, numbered[attempt.id], version_numbers.get(attempt.scenario_version_id, 0),
                _aware(attempt.created_at), attempt.status, evidence.fixed_count(),
                tuple(COMPONENT_NAMES[c] for c in evidence.components_failing)))
            last_evidence = evidence
            submits_without_run += not since_submit_ran
        since_submit_ran = False
        for reading in read_notes(attempt.notes, [q for q, _t in facts.questions]):
            for method in reading.methods:
                methods.setdefault(method, reading.phrase_of("method", method))
            for claim in reading.claims:
                if claim.negated or not claim.kinds:
                    continue
                name = KIND_KNOWLEDGE[claim.kinds[0]].name
                verdict = evidence.kind_verdict(claim.kinds[0])
                target = supported if verdict == "supported" else contradicted if verdict == "contradicted" else None
                if target is not None:
                    target.setdefault(name, None)
    _fill(report, methods, supported, contradicted, last_evidence, submits_without_run)
    if guard is not None:
        for section in (report.strengths, report.verified, report.skipped, report.practise):
            section[:] = [line for line in section if not guard.leaks(line)]
    return report


def _fill(report: CoachingReport, methods: dict[str, str], supported: dict[str, None],
          contradicted: dict[str, None], evidence: Evidence | None, submits_without_run: int) -> None:
    if evidence is not None:
        fixed = evidence.fixed_count()
        if fixed and fixed[0]:
            report.strengths.append(f"{fixed[0]} of {fixed[1]} planted bugs pass their checks on your last submit.")
        if evidence.components_passing:
            names = ", ".join(COMPONENT_NAMES[c] for c in evidence.components_passing)
            report.strengths.append(f"Every check passes on {names}.")
    for name in supported:
        if name not in contradicted:
            report.strengths.append(f"Your notes say you dealt with {name}, and the checks agree.")
    for method, words in methods.items():
        report.verified.append(f"{METHOD_NAMES[method].capitalize()} (you wrote \"{words}\").")
    if report.runs:
        report.verified.append(f"{report.runs} run(s) with the public checks and the training curves.")
    if report.scratch_runs:
        report.verified.append(f"{report.scratch_runs} experiment(s) in the scratch console.")
    for name in contradicted:
        report.skipped.append(f"Your notes claim {name} was dealt with while the checks still failed on it: "
                              "re-check before writing it down.")
    for method in KEY_METHODS:
        if method not in methods:
            report.skipped.append(f"No note mentions {METHOD_NAMES[method]}.")
    if submits_without_run and report.submits:
        report.skipped.append(f"{submits_without_run} of {len(report.submits)} submit(s) came without a run or "
                              "scratch experiment since the previous one.")
    if not report.scratch_runs and report.submits:
        report.skipped.append("The scratch console was never used.")
    if evidence is not None:
        for component in evidence.components_failing[:2]:
            advice = evidence.advice(component)
            report.practise.append(f"{COMPONENT_NAMES[component].capitalize()}: {advice.pro_tip}")
    for method in KEY_METHODS:
        if method not in methods and len(report.practise) < 5:
            report.practise.append(METHOD_SUGGESTIONS[method])
    if not report.practise:
        report.practise.append("Try a harder challenge, and write down the check behind each fix as you go.")


def _version_numbers(session: Session, version_ids: set[int]) -> dict[int, int]:
    """version id -> its number within the challenge (v1, v2 …)."""
    if not version_ids:
        return {}
    rows = session.execute(select(ScenarioVersion.id, ScenarioVersion.version)
                           .where(ScenarioVersion.id.in_(version_ids))).all()
    return {row.id: row.version for row in rows}


def practice_attempts(*, session: Session, user_id: int, slug: str) -> list[Attempt]:
    """A candidate's practice attempts (outside interviews) on every version of one scenario."""
    return list(session.scalars(
        select(Attempt).join(ScenarioVersion, ScenarioVersion.id == Attempt.scenario_version_id)
        .join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
        .where(Attempt.user_id == user_id, Attempt.interview_id.is_(None), Scenario.slug == slug)
        .order_by(Attempt.id)
    ).all())


def interview_attempts(*, session: Session, interview_id: int) -> list[Attempt]:
    return list(session.scalars(select(Attempt).where(Attempt.interview_id == interview_id).order_by(Attempt.id)).all())
