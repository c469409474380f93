"""Attempts named by their number in the workspace (Run 1, Scratch run 2, Submit 3), never by database id:
History, the Results panel, the console, the diff page, the JSON API and the candidate's dashboard."""

from __future__ import annotations

import html
from collections.abc import Callable

from fastapi import FastAPI
from sqlalchemy.orm import Session
from web.support import Account

from app.attempts import numbers
from app.attempts.models import Attempt
from app.grading.result import GradeResult, ScratchOutput
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import get_published

from .helpers import HTMX, graded_result, signed_in, text_of

PAGE = "/challenges/leaky-mask"


def _add(db: Session, account: Account, version: ScenarioVersion, kind: str, status: str, result: dict) -> Attempt:
    attempt = Attempt(user_id=account.user.id, scenario_version_id=version.id, kind=kind, status=status,
                      files={"model.py": f"# {kind}\n"}, result=result, score=0.25 if kind == "submit" else None)
    db.add(attempt)
    db.commit()
    return attempt


def _hidden_only_failing_run() -> dict:
    """A Run as the grader stores it: public tests only, all passing, its status failed by hidden checks."""
    result = graded_result(status="failed") | {"kind": "run"}
    result["tests"] = [t | {"passed": True} for t in result["tests"] if t["public"]]
    return result


def _practice(db: Session, me: Account, other: Account) -> tuple[Attempt, Attempt, Attempt]:
    version = get_published(session=db, slug="leaky-mask")
    assert version is not None
    for _ in range(4):  # someone else's attempts first: ids run ahead of the numbers
        _add(db, other, version, "run", "passed", graded_result(status="passed"))
    scratch_result = GradeResult(status="passed", kind="scratch", scratch=ScratchOutput(stdout="hi", exit_code=0))
    run = _add(db, me, version, "run", "failed", _hidden_only_failing_run())
    scratch = _add(db, me, version, "scratch", "passed", scratch_result.to_dict())
    submit = _add(db, me, version, "submit", "failed", graded_result())
    return run, scratch, submit


def test_history_results_and_console_name_attempts_by_their_number_in_the_workspace(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    other, me = make_account("candidate"), make_account("candidate")
    run, scratch, submit = _practice(db, me, other)
    assert submit.id > 3  # the ids would say #5 and more
    client = signed_in(web_app, me)
    page = client.get(PAGE).text
    history = page.split('<div id="history-body">', 1)[1].split("</table>", 1)[0]
    cells = [text_of(row).split()[0] for row in history.split("<tr>")[2:]]
    assert cells == ["3", "2", "1"]  # newest first
    assert "Results of Submit 3" in text_of(history) and "Diff of Scratch run 2" in text_of(history)
    assert "Results of Run 1" in text_of(history)
    assert f"of #{submit.id}" not in history
    # The hidden-only failure reads as the Run's public checks, as everywhere on the candidate's pages.
    run_row = text_of(history.split("<tr>")[-1])
    assert "passed (public checks)" in run_row and "failed" not in run_row
    results = page.split('id="results-body"', 1)[1].split('id="console-body"', 1)[0]
    assert "Submit 3 ·" in text_of(results) and f"#{submit.id}" not in results
    assert 'data-number="3"' in results
    console = page.split('id="console-body"', 1)[1]
    assert "Scratch run 2 ·" in text_of(console) and f"#{scratch.id}" not in console

    panel = client.get(f"{PAGE}/attempts/{run.id}/panel", headers=HTMX).text
    assert "Run 1 ·" in text_of(panel)
    assert "Staff view" not in panel  # the hidden checks' note is for interviewers and admins


def test_the_diff_page_names_both_sides_by_number(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    other, me = make_account("candidate"), make_account("candidate")
    run, scratch, submit = _practice(db, me, other)
    client = signed_in(web_app, me)
    page = html.unescape(client.get(f"{PAGE}/attempts/{submit.id}/diff?against=previous").text)
    assert "<title>Submit 3 against Scratch run 2" in page
    assert "<h1>Submit 3 (failed) against Scratch run 2</h1>" in page
    assert "Against the previous attempt (Scratch run 2)" in page
    assert "with the files of Submit 3?" in page
    assert "#" + str(submit.id) not in page and "#" + str(scratch.id) not in page
    first = html.unescape(client.get(f"{PAGE}/attempts/{run.id}/diff").text)
    assert "<h1>Run 1 (passed, public checks) against the starter</h1>" in first


def test_the_api_adds_the_number_beside_the_id(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    other, me = make_account("candidate"), make_account("candidate")
    run, _scratch, submit = _practice(db, me, other)
    client = signed_in(web_app, me)
    body = client.get(f"/api/attempts/{submit.id}").json()
    assert (body["id"], body["number"]) == (submit.id, 3)
    assert client.get(f"/api/attempts/{run.id}").json()["number"] == 1


def test_the_dashboard_lists_attempts_by_number_and_a_runs_public_status(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    other, me = make_account("candidate"), make_account("candidate")
    _practice(db, me, other)
    page = signed_in(web_app, me).get("/candidate").text
    table = page.split('id="attempts-heading"', 1)[1].split("</table>", 1)[0]
    rows = [text_of(r) for r in table.split("<tr>")[2:]]
    assert [r.split()[0:2] for r in rows] == [["Submit", "3"], ["Scratch", "run"], ["Run", "1"]]
    assert "passed (public checks)" in rows[2] and "failed" not in rows[2]


def test_numbers_counted_in_memory_match_the_database_count(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    other, me = make_account("candidate"), make_account("candidate")
    attempts = _practice(db, me, other)
    counted = numbers.numbers_in_full(attempts)
    assert counted == {a.id: numbers.number_of(session=db, attempt=a) for a in attempts} \
        == {attempts[0].id: 1, attempts[1].id: 2, attempts[2].id: 3}
    assert numbers.attempt_name("scratch", 2) == "Scratch run 2" and numbers.attempt_name("submit", 3) == "Submit 3"
