"""The interviewer reads a Run as the candidate read it: "public checks pass" (its hidden checks' failures
beside it), never a bare "failed" above passing checks; on the attempt's summary, the timeline, both
playbacks, the live list and its stream. Attempts are numbered as the candidate's History numbers them, and
the comparison speaks in points."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from web.support import Account, sign_in

from app.attempts.models import Attempt
from app.attempts.staff_verdict import staff_verdict
from app.grading.result import BugResult, GradeResult, ScratchOutput, TestResult
from app.interviews.live.playback import playback_data
from app.interviews.live.stream import attempt_updates
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.workspace.models import Draft, DraftSnapshot, scope_for
from interviews.factories import add_attempt, package_of, started_interview

HIDDEN = "hidden checks fail: 1 planted bug not fixed (Attention)"  # the first bug of leaky-mask is in attention
HIDDEN_FAIL = f"public checks pass; {HIDDEN}"


def _client(app: FastAPI, account: Account) -> TestClient:
    client = TestClient(app)
    sign_in(client, account.email)
    return client


def _hidden_only_failing_run(version: ScenarioVersion) -> dict:
    """A Run as the grader stores it: its public tests only, all passing; its status and bugs judged on
    every check, so hidden checks failing leave it "failed" with the first bug not fixed."""
    package = package_of(version)
    bugs = [BugResult(id=b.id, component=b.component, title=b.title, fixed=n > 0) for n, b in enumerate(package.bugs)]
    tests = [TestResult(id="general.shapes", component="general", passed=True, public=True),
             TestResult(id="loss.at-init", component="loss", passed=True, public=True)]
    return GradeResult(status="failed", kind="run", bugs=bugs, tests=tests, score=0.75).to_dict()


def _interview(db: Session, owner: Account, candidate: Account, version: ScenarioVersion) -> Interview:
    """Run 1 (hidden checks fail), Scratch run 2, Submit 3; snapshots to mark them on."""
    interview = started_interview(db=db, interviewer=owner.user, candidate=candidate.user, version=version)
    start = interview.started_at
    assert start is not None
    add_attempt(db=db, interview=interview, user=candidate.user, version=version, kind="run",
                result=_hidden_only_failing_run(version), at=start + timedelta(minutes=2))
    scratch = GradeResult(status="passed", kind="scratch", scratch=ScratchOutput(stdout="ok", exit_code=0)).to_dict()
    add_attempt(db=db, interview=interview, user=candidate.user, version=version, kind="scratch", result=scratch,
                at=start + timedelta(minutes=3))
    add_attempt(db=db, interview=interview, user=candidate.user, version=version, at=start + timedelta(minutes=4))
    draft = Draft(user_id=candidate.user.id, scenario_version_id=version.id, interview_id=interview.id,
                  scope=scope_for(interview.id), files={}, notes={}, revision=2)
    db.add(draft)
    db.flush()
    db.add_all([DraftSnapshot(draft_id=draft.id, revision=n, files={}, notes={}, taken_at=start + timedelta(minutes=m))
                for n, m in ((1, 2), (2, 4))])
    db.commit()
    return interview


def _words(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment)))


def test_a_run_failed_only_by_hidden_checks_reads_public_checks_pass_everywhere_on_the_review(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    owner, candidate = make_account("interviewer"), make_account("candidate")
    interview = _interview(db, owner, candidate, published_version)
    page = _client(web_app, owner).get(f"/interviewer/interviews/{interview.id}").text

    summary = page.split('id="attempt-1"', 1)[1].split("</summary>", 1)[0]
    assert "<strong>Run 1</strong>" in summary and "status-passed" in summary
    assert f"Run 1 · public checks pass ({HIDDEN}) ·" in _words(summary) and "status-failed" not in summary
    assert "points" not in summary  # a Run scores nothing the candidate sees
    assert "<strong>Scratch run 2</strong>" in page and "<strong>Submit 3</strong>" in page
    submit = page.split('id="attempt-3"', 1)[1].split("</summary>", 1)[0]
    assert 'status-failed">failed</span>' in submit

    # The candidate's panel inside the review: Passed, as the candidate read it, with the hidden checks beside.
    panel = _words(page.split('id="attempt-1"', 1)[1].split('id="attempt-2"', 1)[0])
    assert "Passed" in panel and "Public checks pass (2 of 2). Submit runs the hidden checks." in panel
    assert "Staff view: this Run also ran the hidden checks" in panel and "1 planted bug not fixed" in panel

    timeline = page.split('class="timeline"', 1)[1].split("</thead>", 1)[0]
    run_column = timeline.split('<th scope="col">')[2].split("</th>", 1)[0]
    assert "Run 1" in run_column and 'status-passed small">public checks pass<' in run_column, run_column

    playback = _words(page.split('id="playback"', 1)[1].split('class="playback-file"', 1)[0])
    assert f"Run 1 (+2:00, {HIDDEN_FAIL})" in playback and "Submit 3 (+4:00, failed)" in playback, playback

    live = page.split('id="live-attempts"', 1)[1].split("</ol>", 1)[0]
    items = [_words(item) for item in live.split("<li")[1:]]
    assert items[0].split(">", 1)[1].strip().startswith(f"Run 1 · {HIDDEN_FAIL}"), items
    assert 'class="attempt-passed"' in live.split("<li")[1]
    assert "Submit 3 · failed · 0 points" in _words(live)


def test_the_stream_and_the_keystroke_playback_number_and_word_attempts_as_the_page_does(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    owner, candidate = make_account("interviewer"), make_account("candidate")
    interview = _interview(db, owner, candidate, published_version)
    updates = [data for _key, data in attempt_updates(db, interview)]
    assert [(u["kind"], u["number"]) for u in updates] == [("run", 1), ("submit", 3)]  # the scratch run counts
    run = updates[0]
    assert run["status"] == "failed"  # the stored status stays, as the contract has it
    assert run["shown_status"] == "passed" and str(run["verdict"]).startswith(HIDDEN_FAIL)
    markers = playback_data(session=db, interview=interview).markers
    labels = [m["label"] for m in markers if m["kind"] in ("run", "submit")]
    assert labels[0].startswith(f"Run 1: {HIDDEN_FAIL}") and labels[1] == "Submit 3: failed, 0 points"


def test_staff_verdicts_follow_the_candidates_and_add_what_hidden_checks_found() -> None:
    def run(status: str, tests: list[TestResult], bugs: list[BugResult] | None = None) -> tuple[Attempt, GradeResult]:
        result = GradeResult(status=status, kind="run", tests=tests, bugs=bugs or [])
        return Attempt(kind="run", status=status), result

    public_ok = TestResult(id="loss.a", component="loss", passed=True, public=True)
    verdict = staff_verdict(*run("passed", [public_ok]))
    assert (verdict.status, verdict.label, verdict.hidden) == ("passed", "public checks pass", "hidden checks pass too")
    # Results stored with their hidden tests count them by component.
    hidden = [TestResult(id="attention.x", component="attention", passed=False),
              TestResult(id="attention.y", component="attention", passed=False)]
    verdict = staff_verdict(*run("failed", [public_ok, *hidden]))
    assert verdict.text == "public checks pass; 2 hidden checks failed (2 in Attention)"
    failing = TestResult(id="loss.b", component="loss", passed=False, public=True)
    bug = BugResult(id="b", component="loss", title="B", fixed=False)
    verdict = staff_verdict(*run("failed", [failing], [bug]))
    assert (verdict.status, verdict.text) == ("failed", "public checks fail; 1 planted bug not fixed (Loss)")
    submit = staff_verdict(Attempt(kind="submit", status="failed"), GradeResult(status="failed", tests=[failing]))
    assert (submit.label, submit.hidden, submit.summary) == ("failed", "", "1 check failed: 1 in Loss.")


def test_the_interview_api_numbers_attempts_and_the_comparison_speaks_in_points(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    owner, candidate = make_account("interviewer"), make_account("candidate")
    interview = _interview(db, owner, candidate, published_version)
    client = _client(web_app, owner)
    attempts = client.get(f"/api/interviews/{interview.id}").json()["attempts"]
    assert [(a["kind"], a["number"]) for a in attempts] == [("run", 1), ("scratch", 2), ("submit", 3)]
    compare = client.get(f"/interviewer/versions/{published_version.id}/compare").text
    head = compare.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert "Points (of 100)" in head and "Score" not in head
    row = _words(compare.split("<tbody>", 1)[1].split("</tr>", 1)[0])
    assert f"0 points (0 of {len(package_of(published_version).bugs)} bugs fixed)" in row, row
