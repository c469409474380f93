"""Real Chromium, a real `dojo serve`: an invite from the interviewer's Copy button to the candidate's lobby,
Start, and ending early (a neutral banner, not "Time is up"). No grading runs here."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from services import require_chromium

from web.axe import describe, serious_violations
from web.live_server import CHROMIUM_ARGS, LiveServer, live_server, sign_in_as

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    with live_server(tmp_path_factory.mktemp("lobby") / "data", WARM_REFERENCES="0", WARM_SANDBOXES="0") as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: LiveServer) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def test_copy_the_invite_read_the_lobby_start_and_end_early(browser: object, server: LiveServer) -> None:
    from playwright.sync_api import expect

    context = browser.new_context()  # type: ignore[attr-defined]
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    interviewer = context.new_page()
    sign_in_as(interviewer, server, server.users["interviewer"])
    interviewer.goto(f"{server.url}/interviewer")
    interviewer.get_by_label("Candidate email").fill("lobby@dojo.example")
    interviewer.get_by_label("Time limit").fill("25")
    interviewer.get_by_role("button", name="Create interview").click()
    invite_url = interviewer.get_by_label("Invite link").input_value()
    interviewer.get_by_role("button", name="Copy").click()
    expect(interviewer.locator("#invite-url-copied")).to_have_text("Copied.")
    assert interviewer.evaluate("() => navigator.clipboard.readText()") == invite_url

    candidate = browser.new_context().new_page()  # type: ignore[attr-defined]
    candidate.goto(invite_url)
    candidate.get_by_label("New password").fill("lobby-password-123")
    candidate.get_by_label("Repeat the password").fill("lobby-password-123")
    candidate.get_by_role("button", name="Set password and continue").click()
    candidate.wait_for_url(re.compile(r".*/invite/interviews/\d+/lobby"))
    main = candidate.locator("main")
    expect(main).to_contain_text("25 minutes")
    expect(main).to_contain_text("The clock has not started")
    assert candidate.locator(".lobby-brief .prose").inner_text().strip()  # the brief is there to read
    found = serious_violations(candidate)
    assert not found, describe(found)
    interview_id = int(re.search(r"/interviews/(\d+)/lobby", candidate.url).group(1))  # type: ignore[union-attr]
    # Opening the workspace's address before Start comes back to the lobby.
    candidate.goto(f"{server.url}/interviews/{interview_id}/workspace")
    candidate.wait_for_url(re.compile(r".*/lobby"))
    candidate.get_by_role("button", name="Start the interview").click()
    candidate.wait_for_url(re.compile(rf".*/interviews/{interview_id}/workspace"))
    expect(candidate.locator("#countdown")).to_contain_text("left")

    candidate.once("dialog", lambda dialog: dialog.accept())
    candidate.get_by_role("button", name="End interview").click()
    candidate.wait_for_load_state("networkidle")
    ended = candidate.locator(".alert-ended")
    expect(ended).to_contain_text("You ended this interview")
    assert ended.get_attribute("role") == "status"
    assert candidate.locator(".alert-error", has_text="Time is up").count() == 0
    expect(candidate.locator("#countdown")).to_have_text("Ended")
    context.close()
