"""Small keyword-only factories for review tests: an accepted, started interview and attempts with results."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.core.db import utcnow
from app.engine.package import ScenarioPackage
from app.grading.result import BugResult, GradeResult, InfluenceMap, TestResult, TrainingSummary
from app.interviews import service
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.users.models import User


def package_of(version: ScenarioVersion) -> ScenarioPackage:
    return ScenarioPackage.from_dict(version.content)


def started_interview(
    *, db: Session, interviewer: User, candidate: User, version: ScenarioVersion, minutes_ago: int = 10,
    time_limit_minutes: int = 60,
) -> Interview:
    """An interview the candidate accepted and started `minutes_ago` minutes ago (committed)."""
    interview, token = service.create_interview(
        session=db, interviewer=interviewer, candidate_email=candidate.email, scenario_version=version,
        time_limit_minutes=time_limit_minutes, expires_in=timedelta(days=3),
    )
    service.redeem_invite(session=db, token=token, password=None, signed_in=candidate)
    interview.started_at = utcnow() - timedelta(minutes=minutes_ago)
    db.commit()
    return interview


def add_attempt(
    *, db: Session, interview: Interview | None, user: User, version: ScenarioVersion, kind: str = "submit",
    files: dict[str, str] | None = None, fixed: set[str] | None = None, unverifiable: set[str] = frozenset(),  # type: ignore[assignment]
    at: datetime | None = None, notes: dict[str, str] | None = None, result: dict[str, Any] | None = None,
    training: TrainingSummary | None = None,
) -> Attempt:
    """A finished attempt whose stored result fixes the given bug ids (the starter's files by default)."""
    package = package_of(version)
    fixed = fixed or set()
    if result is None:
        bugs = [BugResult(id=b.id, component=b.component, title=b.title, fixed=b.id in fixed,
                          verifiable=b.id not in unverifiable) for b in package.bugs]
        tests = [TestResult(id=f"{b.component}_check_{n}", component=b.component, passed=b.id in fixed)
                 for n, b in enumerate(package.bugs)]
        status = "passed" if all(b.fixed for b in bugs) else "failed"
        result = GradeResult(status=status, bugs=bugs, tests=tests, kind=kind, training=training,
                             score=len(fixed) / max(1, len(bugs))).to_dict()
    attempt = Attempt(
        user_id=user.id, scenario_version_id=version.id, interview_id=interview.id if interview else None, kind=kind,
        status=str(result.get("status", "passed")), files={**package.starter_files, **(files or {})},
        notes=notes or {}, result=result, score=float(result.get("score", 0.0)),
        created_at=at or utcnow(), finished_at=at or utcnow(),
    )
    db.add(attempt)
    db.commit()
    return attempt


def small_training() -> TrainingSummary:
    """A finished tiny training run with curves and an influence map, as the grader stores it."""
    steps = [0, 50, 100]
    influence = InfluenceMap(text="abcd", matrix=[[1.0 if s <= t else 0.0 for s in range(4)] for t in range(4)])
    return TrainingSummary(steps=steps, train_loss=[4.2, 3.1, 2.6], val_loss=[4.2, 3.2, 2.8],
                           baseline_train_loss=[4.2, 3.0, 2.5], baseline_val_loss=[4.2, 3.1, 2.7],
                           final_val_loss=2.8, baseline_final_val_loss=2.7, init_loss=4.2, ln_vocab=4.17,
                           sample="to be or not", baseline_sample="to be, or not", influence=influence,
                           baseline_influence=influence)
