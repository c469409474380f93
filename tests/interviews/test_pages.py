"""The review pages through the real app: what an interviewer sees and can do, and who is kept out."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from web.support import Account, csrf_from, sign_in

from app.coaching.models import CoachingTip
from app.core.db import as_utc, utcnow
from app.grading.result import GradeResult, ScratchOutput
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.workspace.models import Draft, DraftSnapshot, HintReveal, scope_for
from interviews.factories import add_attempt, package_of, small_training, started_interview

SCRIPT = "<script>alert(1)</script>"


def _client(app: FastAPI, account: Account) -> TestClient:
    client = TestClient(app)
    sign_in(client, account.email)
    return client


def _worked_interview(db: Session, owner: Account, candidate: Account, version: ScenarioVersion) -> Interview:
    """Two submissions (the second fixes the first bug), a scratch run, a hint, tips and draft snapshots."""
    package = package_of(version)
    first_bug, second_bug = package.bugs[0].id, package.bugs[1].id
    interview = started_interview(db=db, interviewer=owner.user, candidate=candidate.user, version=version)
    start = interview.started_at
    assert start is not None
    add_attempt(db=db, interview=interview, user=candidate.user, version=version, at=start + timedelta(minutes=2),
                unverifiable={second_bug})
    edited = package.starter_files["model.py"] + "\n# checked the loss at init\n"
    second = add_attempt(db=db, interview=interview, user=candidate.user, version=version, fixed={first_bug},
                         files={"model.py": edited}, at=start + timedelta(minutes=6),
                         notes={package.questions[0]["id"]: f"I tested it {SCRIPT}"}, training=small_training())
    scratch = GradeResult(status="passed", kind="scratch",
                          scratch=ScratchOutput(stdout="loss at init 4.17", exit_code=0)).to_dict()
    add_attempt(db=db, interview=interview, user=candidate.user, version=version, kind="scratch",
                files={"scratch.py": "print('loss at init', 4.17)"}, result=scratch, at=start + timedelta(minutes=4))
    db.add(CoachingTip(attempt_id=second.id, source="rules", component="loss", framing="Frame the loss first.",
                       pro_tip="Check ln V.", steps=["one", "two", "three"]))
    db.add(HintReveal(user_id=candidate.user.id, scenario_version_id=version.id, interview_id=interview.id,
                      scope=scope_for(interview.id), bug_id=second_bug, level=1,
                      revealed_at=start + timedelta(minutes=5)))
    draft = Draft(user_id=candidate.user.id, scenario_version_id=version.id, interview_id=interview.id,
                  scope=scope_for(interview.id), files={"model.py": edited}, notes={}, revision=2)
    db.add(draft)
    db.flush()
    db.add_all([DraftSnapshot(draft_id=draft.id, revision=1, files={"model.py": "# first draft " + SCRIPT}, notes={},
                              taken_at=start + timedelta(minutes=1)),
                DraftSnapshot(draft_id=draft.id, revision=2, files={"model.py": edited}, notes={},
                              taken_at=start + timedelta(minutes=6))])
    db.commit()
    return interview


def test_owner_sees_timeline_attempts_hints_signals_and_playback(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    owner, candidate = make_account("interviewer"), make_account("candidate")
    interview = _worked_interview(db, owner, candidate, published_version)
    page = _client(web_app, owner).get(f"/interviewer/interviews/{interview.id}")
    assert page.status_code == 200, page.text[:500]
    text = page.text
    package = package_of(published_version)
    # The timeline: the first bug not fixed then fixed; the second not verifiable in the first submission.
    row = text.split(package.bugs[0].title, 1)[1].split("</tr>", 1)[0]
    assert row.index("cell-not_fixed") < row.index("cell-fixed")
    assert "cell-not_verifiable" in text.split(package.bugs[1].title, 1)[1].split("</tr>", 1)[0]
    assert "Submit 1" in text and "Submit 3" in text and "Scratch run 2" in text
    assert "loss at init 4.17" in text  # scratch output
    assert 'added: </span># checked the loss at init' in text
    assert 'aria-label="Loss curves"' in text and "Influence" in text  # the workspace's results panel
    assert "Frame the loss first." in text and "Check ln V." in text
    assert "1 of 3" in text and package.bugs[1].title in text  # the hint with its bug and level
    assert "Integrity signals" in text and "Large pastes" in text
    assert "Snapshot 2 of 2" in text
    # Candidate text is escaped everywhere.
    assert SCRIPT not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_playback_moves_through_snapshots_as_fragment_and_page(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    owner, candidate = make_account("interviewer"), make_account("candidate")
    interview = _worked_interview(db, owner, candidate, published_version)
    client = _client(web_app, owner)
    fragment = client.get(f"/interviewer/interviews/{interview.id}/playback?at=0", headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<div id="playback">')
    assert "Snapshot 1 of 2" in fragment.text and "# first draft &lt;script&gt;" in fragment.text
    assert "<html" not in fragment.text
    whole = client.get(f"/interviewer/interviews/{interview.id}/playback?at=99")
    assert "<html" in whole.text and "Snapshot 2 of 2" in whole.text  # clamped to the last snapshot
    assert "<strong>Submit 3</strong> (failed)" in whole.text  # the attempt marked at the last snapshot


def test_candidates_and_strangers_get_404_and_sharing_lets_a_colleague_in(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    owner, candidate = make_account("interviewer"), make_account("candidate")
    interview = _worked_interview(db, owner, candidate, published_version)
    url = f"/interviewer/interviews/{interview.id}"
    assert _client(web_app, candidate).get(url).status_code == 404
    colleague = make_account("interviewer")
    colleague_client = _client(web_app, colleague)
    assert colleague_client.get(url).status_code == 404
    assert _client(web_app, make_account("admin")).get(url).status_code == 200

    owner_client = _client(web_app, owner)
    token = csrf_from(owner_client.get(url).text)
    shared = owner_client.post(f"{url}/reviewers", data={"email": colleague.email, "csrf_token": token})
    assert shared.status_code == 200 and f"Shared with {colleague.email}" in shared.text
    page = colleague_client.get(url)
    assert page.status_code == 200 and "Invite and sharing" not in page.text  # reviewers do not manage
    refused = colleague_client.post(f"{url}/revoke", data={"csrf_token": csrf_from(page.text)})
    assert refused.status_code == 403
    bad = owner_client.post(f"{url}/reviewers", data={"email": candidate.email, "csrf_token": token})
    assert bad.status_code == 422 and "active interviewer or admin" in bad.text


def test_review_form_saves_scores_decision_and_notes(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    owner, candidate = make_account("interviewer"), make_account("candidate")
    interview = _worked_interview(db, owner, candidate, published_version)
    client = _client(web_app, owner)
    url = f"/interviewer/interviews/{interview.id}"
    token = csrf_from(client.get(url).text)
    form = {"csrf_token": token, "score_finding_bugs": "3", "score_communication": "4", "decision": "hire",
            "notes": f"Solid method {SCRIPT}"}
    saved = client.post(f"{url}/review", data=form, headers={"HX-Request": "true"})
    assert saved.status_code == 200 and "Review saved." in saved.text
    assert saved.text.lstrip().startswith('<div id="review-panel">')
    assert 'value="3" checked' in saved.text and '<option value="hire" selected>' in saved.text
    assert "Solid method &lt;script&gt;" in saved.text
    refused = client.post(f"{url}/review", data={**form, "score_finding_bugs": "9"})
    assert refused.status_code == 422 and "from 1 to 4" in refused.text
    assert "Solid method" in client.get(f"/api/interviews/{interview.id}").json()["reviews"][0]["notes"]


def test_new_link_revoke_and_extend_from_the_page(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    from app.interviews import service

    owner = make_account("interviewer")
    interview, old_token = service.create_interview(
        session=db, interviewer=owner.user, candidate_email="later@example.com", scenario_version=published_version,
        time_limit_minutes=30, expires_in=timedelta(days=1))
    db.commit()
    client = _client(web_app, owner)
    url = f"/interviewer/interviews/{interview.id}"
    token = csrf_from(client.get(url).text)
    resent = client.post(f"{url}/invite", data={"csrf_token": token})
    assert resent.status_code == 200 and "New invite link" in resent.text
    assert client.get(f"/invite/{old_token}").status_code == 404  # the old link is void
    new_url = resent.text.split('id="new-invite-url" class="mono" type="text" readonly value="', 1)[1].split('"', 1)[0]
    assert client.get(new_url.replace("http://testserver", "")).status_code == 200
    before = as_utc(interview.invite_expires_at)
    extended = client.post(f"{url}/extend", data={"csrf_token": token, "invite_days": "2"})
    assert extended.status_code == 200 and "Extended." in extended.text
    db.refresh(interview)
    assert as_utc(interview.invite_expires_at) > before
    revoked = client.post(f"{url}/revoke", data={"csrf_token": token})
    assert revoked.status_code == 200 and "state-revoked" in revoked.text
    assert client.get(new_url.replace("http://testserver", "")).status_code == 410
    again = client.post(f"{url}/extend", data={"csrf_token": token, "extra_minutes": "10"})
    assert again.status_code == 409 and "revoked" in again.text


def test_report_compare_and_dashboard_links(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    owner, candidate, other = make_account("interviewer"), make_account("candidate"), make_account("candidate")
    interview = _worked_interview(db, owner, candidate, published_version)
    second = started_interview(db=db, interviewer=owner.user, candidate=other.user, version=published_version)
    package = package_of(published_version)
    add_attempt(db=db, interview=second, user=other.user, version=published_version,
                fixed={b.id for b in package.bugs}, at=utcnow())
    client = _client(web_app, owner)
    report = client.get(f"/interviewer/interviews/{interview.id}/report")
    assert report.status_code == 200
    assert 'href="http://testserver/static/css/review-print.css" media="print"' in report.text
    assert "Per-bug timeline" in report.text and "added: </span># checked the loss at init" in report.text
    compare = client.get(f"/interviewer/versions/{published_version.id}/compare?sort=score&dir=desc")
    assert compare.status_code == 200
    assert compare.text.index(other.email) < compare.text.index(candidate.email)  # 100 before 25
    ascending = client.get(f"/interviewer/versions/{published_version.id}/compare?sort=score&dir=asc").text
    assert ascending.index(candidate.email) < ascending.index(other.email)
    assert 'aria-sort="ascending"' in ascending
    assert client.get(f"/interviewer/versions/{published_version.id}/compare?sort=nope").status_code == 422
    dashboard = client.get("/interviewer").text
    assert f"/interviewer/interviews/{interview.id}" in dashboard and "/api/interviews.csv" in dashboard


def test_admin_edits_the_rubric_and_interviewers_score_against_it(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    admin = _client(web_app, make_account("admin"))
    token = csrf_from(admin.get("/admin/rubric").text)
    levels = {f"level_0_{n}": f"Level {n} of debugging speed" for n in range(1, 5)}
    saved = admin.post("/admin/rubric", data={"csrf_token": token, "title_0": "Debugging speed", **levels})
    assert saved.status_code == 200 and "Rubric saved." in saved.text
    try:
        owner, candidate = make_account("interviewer"), make_account("candidate")
        interview = _worked_interview(db, owner, candidate, published_version)
        page = _client(web_app, owner).get(f"/interviewer/interviews/{interview.id}").text
        assert "Debugging speed" in page and "Level 4 of debugging speed" in page
        assert "Root-cause explanation" not in page
        missing = admin.post("/admin/rubric", data={"csrf_token": token, "title_0": "Speed", "level_0_1": "x"})
        assert missing.status_code == 422 and "Level 2 of criterion 1" in missing.text
    finally:
        restored = admin.post("/admin/rubric", data={"csrf_token": token, "restore_default": "1"})
        assert "Root-cause explanation" in restored.text
