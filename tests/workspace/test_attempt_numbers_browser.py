"""In real Chromium: the candidate's workspace names attempts by their number in the challenge (Run 1,
Scratch run 2, Submit 3), never a database id, also after History swaps another attempt into Results; the
interviewer's review reads a Run whose hidden checks fail as the candidate read it ("public checks pass",
the hidden checks' failures beside it), never "failed" above passing checks.

Results are stored on attempts directly (no grading), so the module needs one server and no sandbox.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from services import require_chromium
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session
from web.live_server import LiveServer, live_server, sign_in_as

import app.models  # noqa: F401  (every table, so foreign keys resolve)
from app.attempts.models import Attempt
from app.core.db import utcnow
from app.engine.builtin import find_builtin
from app.interviews.models import Interview
from app.scenarios.models import Scenario, ScenarioVersion
from app.users.models import User

from .helpers import graded_result

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLUG = "warm-up"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    with live_server(tmp_path_factory.mktemp("numbers") / "data", WARM_REFERENCES="0", WARM_SANDBOXES="0") as running:
        yield running


def _db(server: LiveServer) -> Session:
    return Session(create_engine(f"sqlite:///{server.data_dir / 'dojo.sqlite3'}"))


def _user(db: Session, server: LiveServer, role: str) -> User:
    return db.scalars(select(User).where(User.email == server.users[role])).one()


def _version(db: Session) -> ScenarioVersion:
    return db.scalars(select(ScenarioVersion).join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
                      .where(Scenario.slug == SLUG, ScenarioVersion.status == "published")).one()


def _hidden_only_failing_run() -> dict:
    """A Run as the grader stores it: public tests only, all passing; "failed" by hidden checks, its first
    planted bug not fixed."""
    result = graded_result(status="failed") | {"kind": "run", "scenario": SLUG}
    result["tests"] = [t | {"passed": True} for t in result["tests"] if t["public"]]
    result["bugs"] = [{"id": b.id, "component": b.component, "title": b.title, "fixed": n > 0}
                      for n, b in enumerate(find_builtin(SLUG).bugs)]
    return result


def _store(db: Session, user: User, kind: str, status: str, result: dict, interview_id: int | None = None) -> int:
    attempt = Attempt(user_id=user.id, scenario_version_id=_version(db).id, kind=kind, status=status, files={},
                      result=result, score=0.0 if kind == "submit" else None, interview_id=interview_id,
                      finished_at=utcnow())
    db.add(attempt)
    db.commit()
    return attempt.id


@pytest.fixture
def page(browser: Any, errors: list[str]) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    tab = ctx.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda m: m.type == "error" and errors.append(m.text))
    yield tab
    ctx.close()
    assert not errors, f"browser errors: {errors}"


def test_the_workspace_numbers_attempts_per_challenge_and_keeps_them_when_history_swaps_results(
    page: Any, server: LiveServer
) -> None:
    with _db(server) as db:
        admin, candidate = _user(db, server, "admin"), _user(db, server, "candidate")
        for _ in range(3):  # someone else's attempts first: the ids run ahead of the candidate's numbers
            _store(db, admin, "submit", "failed", graded_result())
        run_id = _store(db, candidate, "run", "failed", _hidden_only_failing_run())
        _store(db, candidate, "scratch", "passed", {"status": "passed", "kind": "scratch",
                                                    "scratch": {"stdout": "hi", "exit_code": 0}})
        submit_id = _store(db, candidate, "submit", "failed", graded_result() | {"scenario": SLUG})
    sign_in_as(page, server, server.users["candidate"], server.password)
    page.goto(f"{server.url}/challenges/{SLUG}")
    results = page.get_by_role("region", name="Results")
    expect(results.locator(".attempt-name")).to_contain_text("Submit 3 ·")
    expect(results).not_to_contain_text(f"#{submit_id}")
    history = page.locator("#history-body")
    first_cells = history.locator("tbody tr td:first-child")
    expect(first_cells).to_have_text(["3", "2", "1"])
    # History's Results link swaps Run 1 into the panel in place: named by its number, judged by its public checks.
    history.get_by_role("link", name="Results of Run 1").click()
    expect(results.locator(f'#results-body[data-attempt="{run_id}"]')).to_be_attached()
    expect(results.locator(".attempt-name")).to_contain_text("Run 1 ·")
    expect(results.locator(".verdict-label")).to_have_text("Passed")
    expect(results).to_contain_text("Public checks pass (2 of 2). Submit runs the hidden checks.")
    expect(results).not_to_contain_text(f"#{run_id}")


def test_the_review_reads_a_run_failed_only_by_hidden_checks_as_public_checks_pass(
    page: Any, server: LiveServer
) -> None:
    with _db(server) as db:
        candidate, interviewer = _user(db, server, "candidate"), _user(db, server, "interviewer")
        now = utcnow()
        interview = Interview(interviewer_id=interviewer.id, candidate_id=candidate.id,
                              candidate_email=candidate.email, scenario_version_id=_version(db).id,
                              invite_token_hash="n" * 64, invite_expires_at=now, invite_used_at=now, started_at=now)
        db.add(interview)
        db.commit()
        interview_id = interview.id
        _store(db, candidate, "run", "failed", _hidden_only_failing_run(), interview_id=interview_id)
        _store(db, candidate, "submit", "failed", graded_result() | {"scenario": SLUG}, interview_id=interview_id)
    sign_in_as(page, server, server.users["interviewer"], server.password)
    page.goto(f"{server.url}/interviewer/interviews/{interview_id}")
    run = page.locator("#attempt-1 > summary")
    expect(run).to_contain_text("Run 1 · public checks pass (hidden checks fail: 1 planted bug not fixed (Positional))")
    expect(run.locator(".status")).to_have_class("status status-passed")
    expect(run).not_to_contain_text("failed ·")
    expect(page.locator("#attempt-2 > summary")).to_contain_text("Submit 2 · failed")
    timeline_head = page.locator("table.timeline thead")
    expect(timeline_head).to_contain_text("Run 1")
    expect(timeline_head.locator(".status").first).to_have_text("public checks pass")
    live = page.get_by_role("region", name="Live").locator("#live-attempts li").first
    expect(live).to_have_text("Run 1 · public checks pass; hidden checks fail: 1 planted bug not fixed (Positional)")
    # The candidate's own panel, opened inside the review, says Passed and why the staff table shows more.
    page.locator("#attempt-1 > summary").click()
    panel = page.locator("#attempt-1 .results-panel")
    expect(panel.locator(".verdict-label")).to_have_text("Passed")
    expect(panel.locator(".verdict-hidden")).to_contain_text("this Run also ran the hidden checks")
