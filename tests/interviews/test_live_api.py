"""A live interview through the app (rolled-back database): notes and messages, who may write and read them,
keystroke recording with each save (checked, capped), and the playback data. The stream itself is tested
against a real server in test_live_stream.py."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from web.support import Account, page_csrf, sign_in

from app.core.settings import get_settings
from app.interviews.live.changes import ChangesMisfit, apply_changes
from app.interviews.live.models import KeystrokeBatch, LiveEvent
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from interviews.factories import add_attempt, package_of, started_interview

NOTE = "Candidate skipped the mask; ask about it at the debrief"


def _interview(db: Session, make_account: Callable[..., Account],
               version: ScenarioVersion) -> tuple[Interview, Account, Account]:
    candidate, interviewer = make_account("candidate"), make_account("interviewer")
    interview = started_interview(db=db, interviewer=interviewer.user, candidate=candidate.user, version=version)
    return interview, candidate, interviewer


def _client(app: FastAPI, account: Account) -> tuple[TestClient, str]:
    client = TestClient(app)
    sign_in(client, account.email)
    return client, page_csrf(client, "/")


def test_apply_changes_follows_codemirror_change_sets() -> None:
    assert apply_changes("abc\ndef", [3, [0, "X", "Y"], 4]) == "abcX\nY\ndef"
    assert apply_changes("abc", [1, [1], 1]) == "ac"
    for bad in ([5], [1, [1]], "nope", [1, ["x"]], [-1, 4]):
        with pytest.raises(ChangesMisfit):
            apply_changes("abc", bad)


def test_notes_and_messages_for_the_interviewer_never_for_the_candidate(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    interview, candidate, interviewer = _interview(db, make_account, published_version)
    staff, staff_csrf = _client(web_app, interviewer)
    headers = {"X-CSRF-Token": staff_csrf}
    note = staff.post(f"/api/interviews/{interview.id}/notes", json={"text": NOTE}, headers=headers)
    assert note.status_code == 201, note.text
    assert 9 * 60 <= note.json()["seconds"] <= 11 * 60  # the interview started ten minutes ago
    sent = staff.post(f"/api/interviews/{interview.id}/messages", json={"text": "Look at the schedule again"},
                      headers=headers)
    assert sent.status_code == 201, sent.text
    for bad, status in (({"text": "   "}, 422), ({"text": "x" * 4001}, 422), ({"txt": "x"}, 422)):
        assert staff.post(f"/api/interviews/{interview.id}/notes", json=bad, headers=headers).status_code == status
    assert staff.post(f"/api/interviews/{interview.id}/messages", json={"text": "y" * 501},
                      headers=headers).status_code == 422
    body = staff.get(f"/api/interviews/{interview.id}").json()
    assert [n["text"] for n in body["notes"]] == [NOTE] and body["notes"][0]["author"] == interviewer.email
    assert [m["text"] for m in body["messages"]] == ["Look at the schedule again"]
    page = staff.get(f"/interviewer/interviews/{interview.id}").text
    assert 'aria-labelledby="live-heading"' in page
    assert "s editor: model.py" in page, page[page.find("live-text-1") - 50:page.find("live-text-1") + 300]
    assert NOTE in page
    assert "Notes and messages on the clock" in page  # the timeline has them at their moments
    assert NOTE in staff.get(f"/interviewer/interviews/{interview.id}/report").text

    # The candidate sees the message, never the note: workspace page, API, downloads, streams.
    mine, mine_csrf = _client(web_app, candidate)
    workspace = mine.get(f"/interviews/{interview.id}/workspace")
    assert workspace.status_code == 200
    assert "Look at the schedule again" in workspace.text and "Messages from the interviewer" in workspace.text
    assert NOTE not in workspace.text and "Private note" not in workspace.text
    for path in (f"/api/interviews/{interview.id}", f"/api/interviews/{interview.id}/live",
                 f"/interviewer/interviews/{interview.id}", f"/interviewer/interviews/{interview.id}/playback.json",
                 f"/interviewer/interviews/{interview.id}/report", "/api/interviews.csv"):
        response = mine.get(path)
        assert response.status_code == 404, (path, response.status_code)
        assert NOTE not in response.text
    slug = package_of(published_version).slug
    download = mine.get(f"/challenges/{slug}/download", params={"interview": interview.id})
    assert download.status_code == 200
    with zipfile.ZipFile(io.BytesIO(download.content)) as archive:
        assert all(NOTE not in archive.read(name).decode() for name in archive.namelist())
    for path in (f"/api/interviews/{interview.id}/notes", f"/api/interviews/{interview.id}/messages"):
        assert mine.post(path, json={"text": "mine"}, headers={"X-CSRF-Token": mine_csrf}).status_code == 404
    # Notes are not live events: nothing a candidate's stream reads could carry them.
    kinds = set(db.scalars(select(LiveEvent.kind).where(LiveEvent.interview_id == interview.id)))
    assert kinds == {"message"}


def test_only_the_interviews_interviewers_and_admins(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    interview, _candidate, _interviewer = _interview(db, make_account, published_version)
    stranger, stranger_csrf = _client(web_app, make_account("interviewer"))
    assert stranger.post(f"/api/interviews/{interview.id}/notes", json={"text": "x"},
                         headers={"X-CSRF-Token": stranger_csrf}).status_code == 404
    assert stranger.get(f"/api/interviews/{interview.id}/live").status_code == 404
    admin, admin_csrf = _client(web_app, make_account("admin"))
    assert admin.post(f"/api/interviews/{interview.id}/notes", json={"text": "admin note"},
                      headers={"X-CSRF-Token": admin_csrf}).status_code == 201
    anonymous = TestClient(web_app)
    assert anonymous.get(f"/api/interviews/{interview.id}/live").status_code == 401


def test_forms_without_javascript_and_messages_only_while_it_runs(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    interview, _candidate, interviewer = _interview(db, make_account, published_version)
    staff, csrf = _client(web_app, interviewer)
    added = staff.post(f"/interviewer/interviews/{interview.id}/notes", data={"text": "form note", "csrf_token": csrf},
                       follow_redirects=False)
    assert added.status_code == 303 and added.headers["location"].endswith("#live")
    fragment = staff.post(f"/interviewer/interviews/{interview.id}/messages",
                          data={"text": "", "csrf_token": csrf}, headers={"HX-Request": "true"})
    assert fragment.status_code == 422 and "empty" in fragment.text and 'id="live-messages"' in fragment.text
    interview.revoked_at = interview.started_at
    db.commit()
    refused = staff.post(f"/api/interviews/{interview.id}/messages", json={"text": "too late"},
                         headers={"X-CSRF-Token": csrf})
    assert refused.status_code == 409 and "in progress" in refused.json()["detail"]


def _autosave(client: TestClient, csrf: str, slug: str, interview: Interview, files: dict[str, str],
              live: dict[str, object] | None, revision: int | None = None) -> dict[str, object]:
    body: dict[str, object] = {"files": files}
    if live is not None:
        body["live"] = live
    response = client.post(f"/challenges/{slug}/draft", params={"interview": interview.id}, json=body,
                           headers={"X-CSRF-Token": csrf})
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_saves_record_checked_keystrokes_or_the_whole_text_within_the_caps(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    interview, candidate, interviewer = _interview(db, make_account, published_version)
    package = package_of(published_version)
    starter = package.starter_files["model.py"]
    mine, csrf = _client(web_app, candidate)
    typed = starter + "x = 1\n"
    changes = [[900, [len(starter), [0, "x"]], "input.type"], [400, [len(starter) + 1, [0, " = 1", ""]], "input.type"]]
    _autosave(mine, csrf, package.slug, interview, {"model.py": typed},
              {"file": "model.py", "cursor_line": typed.count("\n"), "focused": True, "active": True,
               "changes": {"model.py": changes}})
    # Changes that do not give the saved text (a lost report, another tab) keep the whole text instead.
    jumped = typed + "# pasted elsewhere\n"
    _autosave(mine, csrf, package.slug, interview, {"model.py": jumped},
              {"changes": {"model.py": [[10, [len(typed), [0, "nope"]], "input.type"]]}})
    batches = db.scalars(select(KeystrokeBatch).where(KeystrokeBatch.interview_id == interview.id)
                         .order_by(KeystrokeBatch.id)).all()
    assert [(b.text is None, b.file) for b in batches] == [(True, "model.py"), (False, "model.py")]
    assert [c[0] for c in batches[0].changes] == [0, 500] and batches[1].text == jumped
    events = db.execute(select(LiveEvent.kind, LiveEvent.data).where(LiveEvent.interview_id == interview.id)
                        .order_by(LiveEvent.id)).all()
    assert [e.kind for e in events] == ["draft", "presence", "draft"]
    assert events[0].data["text"] == typed and events[0].data["cursor_line"] == typed.count("\n")
    assert events[1].data["file"] == "model.py" and events[1].data["focused"] is True

    # Past the per-interview cap a batch is refused whole: nothing of it is written, the draft is saved.
    recorded = db.scalar(select(func.sum(KeystrokeBatch.size_bytes)).where(KeystrokeBatch.interview_id == interview.id))
    monkeypatch.setattr(get_settings(), "keystroke_bytes_per_interview", int(recorded or 0) + 5)
    saved = _autosave(mine, csrf, package.slug, interview, {"model.py": jumped + "y = 2\n"},
                      {"changes": {"model.py": [[5, [len(jumped), [0, "y = 2", ""]], "input.type"]]}})
    assert saved["saved"] is True
    assert db.scalar(select(func.count(KeystrokeBatch.id)).where(KeystrokeBatch.interview_id == interview.id)) == 2

    # The playback replays the recording, with the Run at its moment and its files for the diff.
    add_attempt(db=db, interview=interview, user=candidate.user, version=published_version, kind="run",
                files={"model.py": typed})
    staff, _csrf = _client(web_app, interviewer)
    data = staff.get(f"/interviewer/interviews/{interview.id}/playback.json").json()
    assert data["files"]["model.py"] == starter
    text = starter
    for step in data["steps"]:
        text = step[3] if step[2] == "text" else apply_changes(text, step[3])
    assert text == jumped
    assert [m["kind"] for m in data["markers"]] == ["run"] and data["runs"][0]["files"]["model.py"] == typed
    assert data["runs"][0]["label"].startswith("Run 1: ")


def test_presence_only_from_the_candidate_of_a_running_interview(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    interview, candidate, interviewer = _interview(db, make_account, published_version)
    mine, csrf = _client(web_app, candidate)
    report = {"file": "data.py", "focused": False, "active": False}
    assert mine.post(f"/interviews/{interview.id}/live/presence", json=report,
                     headers={"X-CSRF-Token": csrf}).status_code == 204
    staff, staff_csrf = _client(web_app, interviewer)
    assert staff.post(f"/interviews/{interview.id}/live/presence", json=report,
                      headers={"X-CSRF-Token": staff_csrf}).status_code == 404
    assert mine.post(f"/interviews/{interview.id}/live/presence", json={"file": "x", "extra": 1},
                     headers={"X-CSRF-Token": csrf}).status_code == 422
    data = db.scalars(select(LiveEvent.data).where(LiveEvent.interview_id == interview.id)).all()
    assert data == [{"file": "data.py", "active": False, "focused": False, "cursor_line": None,
                     "seconds": data[0]["seconds"]}]
    page = staff.get(f"/interviewer/interviews/{interview.id}").text
    assert "away from the page" in page and '<code data-live="file">data.py</code>' in page
