"""What the workspace posts: autosave and conflicts, Run/Submit, refusals that lose nothing, hints, reset, zip."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.support import Account

from app.attempts.models import Attempt
from app.engine.builtin import find_builtin
from app.engine.scratch import STARTER as SCRATCH_STARTER
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import get_published
from app.workspace.models import Draft, DraftSnapshot, HintReveal, WorkspaceEvent

from .helpers import HTMX, graded_result, page_csrf, signed_in, text_of

PAGE = "/challenges/leaky-mask"


def _draft(db: Session, account: Account) -> Draft:
    db.expire_all()
    return db.scalars(select(Draft).where(Draft.user_id == account.user.id)).one()


def test_autosave_bumps_the_revision_and_a_tab_that_is_behind_is_told(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    headers = {"X-CSRF-Token": token}
    first = client.post(f"{PAGE}/draft", json={"files": {"model.py": "# tab A"}, "revision": 0}, headers=headers)
    assert first.json()["saved"] is True and first.json()["revision"] == 1
    stale = client.post(f"{PAGE}/draft", json={"files": {"model.py": "# tab B"}, "revision": 0}, headers=headers)
    assert stale.json() == {"saved": False, "revision": 1, "updated_at": first.json()["updated_at"]}
    assert _draft(db, me).files["model.py"] == "# tab A"
    assert client.get(f"{PAGE}/draft").json()["files"]["model.py"] == "# tab A"
    forced = client.post(f"{PAGE}/draft", json={"files": {"model.py": "# tab B"}, "revision": 0, "force": True},
                         headers=headers)
    assert forced.json()["saved"] is True and _draft(db, me).files["model.py"] == "# tab B"
    assert db.scalars(select(DraftSnapshot).where(DraftSnapshot.draft_id == _draft(db, me).id)).first() is not None


def test_autosave_refuses_unknown_files_and_oversize_text_and_keeps_the_draft(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    headers = {"X-CSRF-Token": token}
    evil = client.post(f"{PAGE}/draft", json={"files": {"../evil.py": "x"}, "revision": 0}, headers=headers)
    assert evil.status_code == 422 and "Unknown file" in evil.json()["detail"]
    huge = client.post(f"{PAGE}/draft", json={"files": {"model.py": "x" * 70_000}, "revision": 0}, headers=headers)
    assert huge.status_code == 413 and "Nothing was saved" in huge.json()["detail"]
    assert _draft(db, me).files["model.py"] == find_builtin("leaky-mask").starter_files["model.py"]
    no_token = client.post(f"{PAGE}/draft", json={"files": {"model.py": "x"}, "revision": 0})
    assert no_token.status_code == 403


def test_run_without_script_saves_the_draft_queues_the_attempt_and_redirects_to_results(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    form = {"csrf_token": token, "kind": "run", "file:model.py": "# edited", "file:scratch.py": "print(1)",
            "note:find": "printed a batch"}
    response = client.post(f"{PAGE}/attempts", data=form, follow_redirects=False)
    assert response.status_code == 303 and "attempt=" in response.headers["location"]
    attempt = db.scalars(select(Attempt).where(Attempt.user_id == me.user.id)).one()
    assert attempt.kind == "run" and attempt.status == "queued"
    assert attempt.files["model.py"] == "# edited" and "scratch.py" not in attempt.files
    assert attempt.notes == {"find": "printed a batch"}
    draft = _draft(db, me)
    assert draft.files["scratch.py"] == "print(1)" and draft.notes["find"] == "printed a batch"
    page = client.get(response.headers["location"]).text
    assert "Waiting for a grader" in page and 'data-poll="yes"' in page


def test_submit_from_htmx_answers_with_the_polling_panel_and_the_new_revision(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    response = client.post(f"{PAGE}/attempts", data={"csrf_token": token, "kind": "submit", "file:data.py": "# d"},
                           headers=HTMX)
    assert response.status_code == 200
    assert response.headers["X-Draft-Revision"] == str(_draft(db, me).revision)
    assert 'id="results-body"' in response.text and 'data-poll="yes"' in response.text


def test_a_second_submit_in_flight_gets_a_friendly_notice_and_loses_no_text(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    client.post(f"{PAGE}/attempts", data={"csrf_token": token, "kind": "submit"}, headers=HTMX)
    again = client.post(f"{PAGE}/attempts", data={"csrf_token": token, "kind": "submit", "file:model.py": "# keep"},
                        headers=HTMX)
    assert again.status_code == 200 and again.headers["HX-Retarget"] == "#workspace-notice"
    assert "is still being graded; wait for its result" in again.text
    # A refused request stores nothing; the editor (and its autosave) keeps the text.
    assert _draft(db, me).files["model.py"] == find_builtin("leaky-mask").starter_files["model.py"]
    plain = client.post(f"{PAGE}/attempts", data={"csrf_token": token, "kind": "submit", "file:model.py": "# keep 2"},
                        follow_redirects=False)
    assert plain.status_code == 429 and "still being graded" in plain.text and "# keep 2" in plain.text


def test_scratch_runs_carry_scratch_py_and_show_in_the_console(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    page, token = page_csrf(client, PAGE)
    assert "corpus.txt" in page and 'data-file="scratch.py">scratch.py</button>' in page
    response = client.post(f"{PAGE}/attempts", data={"csrf_token": token, "kind": "scratch"}, headers=HTMX)
    assert 'id="console-body"' in response.text
    assert '<div id="history-body" hx-swap-oob="true">' in response.text  # History lists the new run at once
    attempt = db.scalars(select(Attempt).where(Attempt.user_id == me.user.id)).one()
    assert attempt.kind == "scratch" and attempt.files["scratch.py"] == SCRATCH_STARTER
    attempt.status, attempt.result = "passed", {
        "status": "passed", "kind": "scratch",
        "scratch": {"stdout": "x[0]: 'MACBETH'\n", "stderr": "", "exit_code": 0, "wall_seconds": 1.4}}
    db.commit()
    console = client.get(f"{PAGE}/attempts/{attempt.id}/panel", headers=HTMX).text
    assert "Exit status: <strong>0</strong>" in console and "x[0]: &#39;MACBETH&#39;" in console
    # Finished: History, swapped in out of band, lists the scratch run with its status.
    history = console.split('<div id="history-body" hx-swap-oob="true">', 1)[1]
    assert "scratch" in history and "passed" in history


def test_a_hint_shows_its_cost_first_is_recorded_and_counts_in_the_next_attempt(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    page, token = page_csrf(client, PAGE)
    leaky = find_builtin("leaky-mask")
    assert "Get a hint (−3.75 points)" in page  # 100 / 4 bugs * 0.15
    stale = client.post(f"{PAGE}/hint", data={"csrf_token": token, "offer": "2.1"}, headers=HTMX)
    assert "The hint on offer changed" in stale.text
    asked = client.post(f"{PAGE}/hint", data={"csrf_token": token, "offer": "1.1"})  # no script: a page asks
    assert "Take hint 1 of 3 for bug 1?" in text_of(asked.text) and "3.75 points" in text_of(asked.text)
    assert db.scalars(select(HintReveal.level).where(HintReveal.user_id == me.user.id)).all() == []
    taken = client.post(f"{PAGE}/hint", data={"csrf_token": token, "offer": "1.1", "confirm": "yes"}, headers=HTMX)
    assert leaky.bugs[0].hints[0] in text_of(taken.text) and "hint 2 of 3 for bug 1" in text_of(taken.text)
    assert db.scalars(select(HintReveal.level).where(HintReveal.user_id == me.user.id)).all() == [1]
    client.post(f"{PAGE}/attempts", data={"csrf_token": token, "kind": "submit"}, headers=HTMX)
    attempt = db.scalars(select(Attempt).where(Attempt.user_id == me.user.id)).one()
    assert attempt.hints_used == {leaky.bugs[0].id: 1}


def test_the_next_hint_skips_bugs_fixed_at_the_last_submit(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    leaky = find_builtin("leaky-mask")
    result = graded_result()
    result["bugs"] = [{"id": b.id, "component": b.component, "title": b.title, "fixed": n < 2}
                      for n, b in enumerate(leaky.bugs)]
    db.add(Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="failed", files={},
                   result=result))
    db.commit()
    page = signed_in(web_app, me).get(PAGE).text
    assert "hint 1 of 3 for bug 3" in text_of(page)


def test_reset_asks_first_then_restores_the_starter_and_records_it(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    client.post(f"{PAGE}/draft/form", data={"csrf_token": token, "file:model.py": "# mine"})
    ask = client.post(f"{PAGE}/reset", data={"csrf_token": token, "file": "model.py"})
    assert ask.status_code == 200 and "Reset model.py to the starter?" in ask.text
    assert _draft(db, me).files["model.py"] == "# mine"
    done = client.post(f"{PAGE}/reset", data={"csrf_token": token, "file": "model.py", "confirm": "yes"},
                       follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"].endswith("file=model.py")
    assert _draft(db, me).files["model.py"] == find_builtin("leaky-mask").starter_files["model.py"]
    assert db.scalars(select(WorkspaceEvent.kind).where(WorkspaceEvent.user_id == me.user.id)).all() == ["reset_file"]


def test_download_is_a_zip_of_the_files_and_notes(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    client = signed_in(web_app, make_account("candidate"))
    _, token = page_csrf(client, PAGE)
    client.post(f"{PAGE}/draft/form", data={"csrf_token": token, "file:data.py": "# d", "note:verify": "overfit"})
    response = client.get(f"{PAGE}/download")
    assert response.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert set(archive.namelist()) == {"model.py", "data.py", "scratch.py", "NOTES.md"}
    assert archive.read("data.py") == b"# d" and "overfit" in archive.read("NOTES.md").decode()


def test_history_diff_against_previous_and_starter_and_restore(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    starter = find_builtin("leaky-mask").starter_files["model.py"]
    first = starter.replace("diagonal=1", "diagonal=0")
    client.post(f"{PAGE}/attempts", data={"csrf_token": token, "kind": "run", "file:model.py": first})
    attempt_ids = db.scalars(select(Attempt.id).where(Attempt.user_id == me.user.id)).all()
    db.get(Attempt, attempt_ids[0]).status = "failed"
    db.commit()
    client.post(f"{PAGE}/attempts", data={"csrf_token": token, "kind": "run", "file:model.py": first + "# more\n"})
    second = max(db.scalars(select(Attempt.id).where(Attempt.user_id == me.user.id)).all())
    against_previous = client.get(f"{PAGE}/attempts/{second}/diff").text
    assert "# more" in against_previous and "removed: " not in against_previous and "added: " in against_previous
    against_starter = client.get(f"{PAGE}/attempts/{second}/diff?against=starter").text
    assert "diagonal=1" in against_starter and "diagonal=0" in against_starter
    client.post(f"{PAGE}/draft/form", data={"csrf_token": token, "file:model.py": "# scratched"})
    restored = client.post(f"{PAGE}/attempts/{attempt_ids[0]}/restore", data={"csrf_token": token},
                           follow_redirects=False)
    assert restored.status_code == 303 and _draft(db, me).files["model.py"] == first


def test_editor_events_keep_large_pastes_and_time_away_only(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    headers = {"X-CSRF-Token": token}
    post = lambda body: client.post(f"{PAGE}/events", json=body, headers=headers)  # noqa: E731
    assert post({"kind": "paste", "detail": {"file": "model.py", "chars": 1500, "lines": 40}}).status_code == 204
    assert post({"kind": "paste", "detail": {"file": "model.py", "chars": 12, "lines": 1}}).status_code == 204
    assert post({"kind": "focus_lost", "detail": {"seconds": 42}}).status_code == 204
    assert post({"kind": "keylogger", "detail": {}}).status_code == 422
    assert post({"kind": "paste", "detail": {"file": "/etc/passwd", "chars": 900, "lines": 1}}).status_code == 422
    stored = db.scalars(select(WorkspaceEvent).where(WorkspaceEvent.user_id == me.user.id)
                        .order_by(WorkspaceEvent.id)).all()
    assert [(e.kind, e.detail) for e in stored] == [
        ("paste", {"file": "model.py", "chars": 1500, "lines": 40}), ("focus_lost", {"seconds": 42.0})]


def test_cancel_from_the_page_withdraws_a_queued_attempt(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    client.post(f"{PAGE}/attempts", data={"csrf_token": token, "kind": "submit"}, headers=HTMX)
    attempt = db.scalars(select(Attempt).where(Attempt.user_id == me.user.id)).one()
    response = client.post(f"{PAGE}/attempts/{attempt.id}/cancel", data={"csrf_token": token}, headers=HTMX)
    assert '<strong class="verdict-label">Cancelled</strong>' in response.text
    db.expire_all()
    assert db.get(Attempt, attempt.id).status == "cancelled"


def test_results_of_the_latest_run_or_submit_show_on_the_page(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    db.add(Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="passed", files={},
                   result=graded_result(status="passed", leak=False)))
    db.commit()
    page = signed_in(web_app, me).get(PAGE).text
    assert '<strong class="verdict-label">Passed</strong>' in page and "(none)" in page
