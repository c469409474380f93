"""Real Chromium, a real `dojo serve` and real sandboxed grading: an interview from invite to decision.

The interviewer creates an interview; the candidate opens the invite in another browser, submits the
starter, pastes a fix and submits again; the interviewer reads the per-bug timeline, a diff and the paste
signal, scrubs the playback, scores the rubric, decides, and downloads the CSV.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from services import require_chromium

from web.live_server import CHROMIUM_ARGS, LiveServer, accept_invite, live_server, save_review

pytestmark = [pytest.mark.browser, pytest.mark.bwrap]

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = (ROOT / "app/scenarios_builtin/warm-up/solution/model.py").read_text()
GRADING_TIMEOUT_MS = 420_000  # the first grading of a version also computes its reference run


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    with live_server(tmp_path_factory.mktemp("review") / "data") as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: LiveServer) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _watch(page: object, errors: list[str]) -> None:
    """Script errors, CSP violations and failing requests (pages' own error statuses aside)."""
    def _console(message: object) -> None:
        text = message.text  # type: ignore[attr-defined]
        if message.type == "error" and not text.startswith("Failed to load resource"):  # type: ignore[attr-defined]
            errors.append(text)

    def _response(response: object) -> None:
        request = response.request  # type: ignore[attr-defined]
        if response.status >= 400 and request.resource_type != "document":  # type: ignore[attr-defined]
            errors.append(f"{response.status} {request.url}")  # type: ignore[attr-defined]

    page.on("console", _console)  # type: ignore[attr-defined]
    page.on("response", _response)  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: errors.append(str(error)))  # type: ignore[attr-defined]


def _submit_and_wait(page: object, status: str) -> None:
    page.get_by_role("button", name="Submit", exact=True).click()  # type: ignore[attr-defined]
    page.wait_for_selector(f'#results-body[data-status="{status}"]', timeout=GRADING_TIMEOUT_MS)  # type: ignore[attr-defined]


def test_interview_from_invite_to_decision_and_csv(browser: object, server: LiveServer) -> None:
    errors: list[str] = []
    interviewer = browser.new_context(accept_downloads=True).new_page()  # type: ignore[attr-defined]
    _watch(interviewer, errors)
    interviewer.goto(f"{server.url}/sign-in")
    interviewer.get_by_label("Email").fill(server.users["interviewer"])
    interviewer.get_by_label("Password").fill(server.password)
    interviewer.get_by_role("button", name="Sign in").click()
    interviewer.wait_for_url(f"{server.url}/interviewer")
    interviewer.get_by_label("Candidate email").fill("reviewed@dojo.example")
    warm_up = interviewer.locator("#scenario_version_id option", has_text="Warm-up").first.get_attribute("value")
    interviewer.get_by_label("Challenge").select_option(warm_up)
    interviewer.get_by_role("button", name="Create interview").click()
    invite_url = interviewer.get_by_label("Invite link").input_value()

    # The candidate, in another browser: accept, then work in the interview workspace.
    candidate_context = browser.new_context()  # type: ignore[attr-defined]
    candidate_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    candidate = candidate_context.new_page()
    _watch(candidate, errors)
    interview_id = accept_invite(candidate, invite_url, "reviewed-password")
    _submit_and_wait(candidate, "Failed")  # the starter: no bug fixed

    editor = candidate.get_by_label("Editor: model.py")
    editor.click()
    candidate.evaluate("text => navigator.clipboard.writeText(text)", SOLUTION)
    candidate.keyboard.press("Control+A")
    candidate.keyboard.press("Control+V")
    candidate.get_by_label("How did you find the bugs?").fill("Compared the loss at init with ln V.")
    _submit_and_wait(candidate, "Passed")
    candidate_context.close()

    # The interviewer reviews.
    interviewer.goto(f"{server.url}/interviewer/interviews/{interview_id}")
    timeline = interviewer.locator("table.timeline")
    rows = timeline.locator("tbody tr")
    assert rows.count() == 2  # warm-up plants two bugs
    for n in range(2):
        cells = rows.nth(n).locator("td")
        assert [cells.nth(i).inner_text() for i in range(cells.count())] == ["not fixed", "fixed"]
    paste = interviewer.locator(".signal", has_text="Large pastes")
    assert "worth a look" in paste.inner_text() and "into model.py" in paste.inner_text()
    # The paste carried lines only the solution has: evidence an honest fix cannot produce.
    solution_text = interviewer.locator(".signal", has_text="Text only the solution has").inner_text()
    assert "worth a look" in solution_text
    assert "a paste into model.py carried text only the solution has" in solution_text
    # Speed is a fact, and closeness to the solution is no signal at all.
    assert "a fact, not a signal" in interviewer.locator(".signal", has_text="Time to first run").inner_text()
    assert interviewer.locator(".signal", has_text="Near-identical to the solution").count() == 0

    second = interviewer.locator("#attempt-2")
    second.locator("summary").first.click()
    second.get_by_text("Diff against the previous attempt (Submit 1)").click()
    assert second.locator("table.diff td.added").count() > 0

    slider = interviewer.get_by_label("Playback position")
    slider.fill("0")
    interviewer.locator(".playback-now", has_text="Snapshot 1 of").wait_for()

    save_review(interviewer, score=3, decision="hire",
                notes="Fixed both bugs; pasted the model file wholesale, ask why.")

    interviewer.goto(f"{server.url}/interviewer")
    with interviewer.expect_download() as download:
        interviewer.get_by_role("link", name="Download all as CSV").click()
    rows_csv = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text())))
    row = next(r for r in rows_csv if r["candidate"] == "reviewed@dojo.example")
    assert row["bugs_fixed"] == "2" and row["points"] == "100.0" and row["decisions"].endswith("Hire")
    assert "signal: Large pastes" in row["signals"] and "signal: Text only the solution has" in row["signals"]
    interviewer.context.close()
    assert not errors, errors
