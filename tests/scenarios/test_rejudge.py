"""Rejudge: every finished attempt of a version is graded again; the old verdict is kept and the change shown."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest
from dispatch.conftest import app_db  # noqa: F401
from fastapi.testclient import TestClient

from app.attempts.grading_job import write_coaching
from app.attempts.models import Attempt
from app.auth.tokens import issue_token
from app.coaching.models import AI_NOTICE, CoachingTip
from app.coaching.service import gather, rule_tips, tips_of
from app.core.db import new_session
from app.grading.result import BugResult, GradeResult, TestResult
from app.main import create_app
from app.scenarios import rejudge
from app.scenarios import task_runner as job_tasks
from app.scenarios.job_models import JobTask
from app.scenarios.models import ScenarioVersion
from app.scenarios.task_outcomes import Verdict
from app.users.models import User
from app.users.service import create_user
from scenarios.jobs_support import run_queued_tasks, tiny_draft, wait_job

STALE_TIP = "Your submission still fails the hidden checks on positions."
OLD_RESULT = GradeResult(status="failed", tests=[TestResult(id="loss.init-scale", component="loss", passed=False)],
                         bugs=[BugResult(id="pos-not-added", component="positional", fixed=False),
                               BugResult(id="softmax-before-loss", component="loss", fixed=False)]).to_dict()


def _wrongly_failed_attempt_and_a_rejudge() -> tuple[int, int]:
    """(attempt id, rejudge job id): the solution graded "failed" by an older engine, with coaching for that."""
    # A scenario of its own: rejudge takes every attempt of the version, and other tests grade the shared tiny one.
    version_id = tiny_draft()
    with new_session() as session:
        version = session.get(ScenarioVersion, version_id)
        version.status = "published"
        user = create_user(session=session, email=f"rj-{uuid.uuid4().hex[:8]}@example.com", password=None,
                           role="candidate")
        # Graded wrongly by an older engine: the solution's files were judged failed.
        attempt = Attempt(user_id=user.id, scenario_version_id=version.id, kind="submit", status="failed",
                          score=0.0, files=dict(version.content["solution_files"]), result=OLD_RESULT)
        session.add(attempt)
        session.flush()
        # Coaching written for that wrong verdict: it must not outlive it.
        session.add(CoachingTip(attempt_id=attempt.id, source="rules", framing=STALE_TIP, pro_tip="-", steps=["-"],
                                notice=AI_NOTICE, rules=["component.failing"], why=[]))
        session.commit()
        attempt_id = attempt.id
        job_id = rejudge.start_rejudge(session=session, version=session.get(ScenarioVersion, version_id),
                                       user_id=user.id).id
        session.commit()
    return attempt_id, job_id


@pytest.mark.bwrap
def test_rejudge_regrades_each_attempt_and_keeps_the_old_verdict(app_db: None) -> None:  # noqa: F811
    attempt_id, job_id = _wrongly_failed_attempt_and_a_rejudge()
    run_queued_tasks(job_id)
    job = wait_job(job_id, timeout=5)
    assert job.status == "done", job.error
    assert job.summary["changed"] >= 1 and job.summary["attempts"] >= 1
    with new_session() as session:
        attempt = session.get(Attempt, attempt_id)
        assert (attempt.status, attempt.score) == ("passed", 1.0)
        task = session.query(JobTask).filter_by(job_id=job_id, attempt_id=attempt_id).one()
    assert task.previous["status"] == "failed" and task.previous["result"] == OLD_RESULT
    shown = rejudge.changes(Verdict.from_json(task.previous), Verdict.from_json(task.outcome))
    assert "status failed → passed" in shown and "score 0.00 → 1.00" in shown
    assert "bug pos-not-added: not fixed → fixed" in shown
    assert job.summary["changed_attempts"] == [attempt_id]
    with new_session() as session:  # the tips are the coach's for the new verdict
        shown_tips = [tip["framing"] for tip in tips_of(session=session, attempt_id=attempt_id)]
        expected = [tip.framing for tip in rule_tips(gather(session=session, attempt_id=attempt_id))]
    assert STALE_TIP not in shown_tips and shown_tips == expected


@pytest.mark.bwrap
def test_the_verdict_and_tips_an_api_client_sees_agree_even_when_coaching_never_runs(
    app_db: None, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
) -> None:
    """The worker stops between storing the new verdicts and writing their coaching: no stale tip remains."""
    attempt_id, job_id = _wrongly_failed_attempt_and_a_rejudge()
    recoached: list[int] = []
    monkeypatch.setattr(job_tasks, "write_coaching", recoached.append)
    run_queued_tasks(job_id)
    assert wait_job(job_id, timeout=5).status == "done" and recoached == [attempt_id]
    client = TestClient(create_app())
    with new_session() as session:
        attempt = session.get(Attempt, attempt_id)
        owner = session.get(User, attempt.user_id)
        headers = {"Authorization": f"Bearer {issue_token(session=session, user=owner)}"}
        session.commit()
    shown = client.get(f"/api/attempts/{attempt_id}", headers=headers).json()
    assert shown["status"] == "passed" and shown["tips"] == []  # not the failed verdict's tip
    write_coaching(attempt_id)  # what the worker would have done next
    shown = client.get(f"/api/attempts/{attempt_id}", headers=headers).json()
    with new_session() as session:
        expected = [tip.framing for tip in rule_tips(gather(session=session, attempt_id=attempt_id))]
    assert shown["status"] == "passed" and [tip["framing"] for tip in shown["tips"]] == expected != []


def test_changes_is_empty_when_nothing_changed() -> None:
    same = Verdict(status="passed", score=1.0, error=None,
                   result=GradeResult(status="passed", bugs=[BugResult(id="a", component="loss", fixed=True)]))
    assert rejudge.changes(same, replace(same)) == []
