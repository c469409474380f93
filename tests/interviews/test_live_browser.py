"""Two Chromium contexts on a real `dojo serve`: the candidate types and runs while the interviewer follows,
writes a private note and sends a message; then the keystroke playback replays the typing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from services import require_chromium
from web.axe import describe, serious_violations
from web.live_server import CHROMIUM_ARGS, LiveServer, accept_invite, live_server, sign_in_as

pytestmark = pytest.mark.browser

TYPED = "# the live follower sees this line"
NOTE = "Went straight for the mask: good instinct"
MESSAGE = "Look at the schedule again"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    with live_server(tmp_path_factory.mktemp("live") / "data", WARM_REFERENCES="0") as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: LiveServer) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _watch(page: Any, errors: list[str]) -> None:
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and not m.text.startswith("Failed to load resource") else None)
    page.on("pageerror", lambda error: errors.append(str(error)))


def test_the_interviewer_follows_notes_and_messages_while_the_candidate_works(browser: Any, server: LiveServer) -> None:
    errors: list[str] = []
    interviewer = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    _watch(interviewer, errors)
    sign_in_as(interviewer, server, server.users["interviewer"])
    interviewer.get_by_label("Candidate email").fill("followed@dojo.example")
    warm_up = interviewer.locator("#scenario_version_id option", has_text="Warm-up").first.get_attribute("value")
    interviewer.get_by_label("Challenge").select_option(warm_up)
    interviewer.get_by_role("button", name="Create interview").click()
    invite_url = interviewer.get_by_label("Invite link").input_value()

    candidate = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    _watch(candidate, errors)
    interview_id = accept_invite(candidate, invite_url, "follow-me-password-123")
    messages = candidate.get_by_role("region", name="Messages from the interviewer")
    expect(messages).to_be_visible()

    interviewer.goto(f"{server.url}/interviewer/interviews/{interview_id}")
    live = interviewer.get_by_role("region", name="Live")
    follow = live.get_by_role("button", name="Follow")
    expect(follow).to_have_attribute("aria-pressed", "true")
    watched = live.get_by_label("Candidate's editor: model.py")
    expect(watched).to_have_attribute("aria-readonly", "true")

    # The candidate types: the follower sees the text and the line, without a reload.
    candidate.get_by_label("Editor: model.py").click()
    candidate.keyboard.press("Control+End")
    candidate.keyboard.press("Enter")
    candidate.keyboard.type(TYPED, delay=20)
    expect(watched).to_contain_text(TYPED, timeout=15_000)
    expect(live.locator('[data-live="file"]')).to_have_text("model.py")
    expect(live.locator(".cm-dojo-marked-line")).to_contain_text(TYPED)

    # Scrolling the candidate's editor stops following; one click resumes it.
    live.locator(".cm-scroller").first.hover()
    interviewer.mouse.wheel(0, -300)
    expect(follow).to_have_attribute("aria-pressed", "false")
    follow.click()
    expect(follow).to_have_attribute("aria-pressed", "true")

    # The candidate runs: the Run shows up on the interviewer's page as it starts.
    candidate.get_by_role("button", name="Run", exact=True).click()
    started = re.compile(r"Run 1 · (queued|running|public checks (pass|fail)|error)")
    expect(live.locator("#live-attempts")).to_contain_text(started, timeout=30_000)

    # A private note (htmx, no reload) and a message that reaches the candidate without a reload.
    live.get_by_label("Private note").fill(NOTE)
    live.get_by_role("button", name="Add note").click()
    expect(live.get_by_role("list", name="Notes on the clock")).to_contain_text(NOTE)
    live.get_by_label("Message to the candidate").fill(MESSAGE)
    live.get_by_role("button", name="Send").click()
    expect(messages).to_contain_text(MESSAGE, timeout=15_000)
    assert NOTE not in candidate.content()
    found = serious_violations(interviewer, "#live")
    assert found == [], describe(found)
    found = serious_violations(candidate, "#interviewer-messages")
    assert found == [], describe(found)

    # After a reload: the note in the timeline at its moment, and the typing in the keystroke playback.
    interviewer.reload()
    moments = interviewer.get_by_role("list", name="Notes and messages on the clock")
    expect(moments).to_contain_text(NOTE)
    expect(moments).to_contain_text(MESSAGE)
    player = interviewer.locator("#keystroke-player")
    expect(player).to_be_visible(timeout=15_000)
    player.get_by_label("Speed").select_option("32")
    player.get_by_role("button", name="Play").click()
    expect(player.get_by_role("button", name="Pause")).to_have_count(0, timeout=60_000)  # played to the end
    player.get_by_role("button", name="model.py").click()
    expect(player.get_by_label("Playback: model.py")).to_contain_text(TYPED)
    player.get_by_label("Compare with").select_option("starter")
    expect(player.locator(".player-diff-lines")).to_contain_text(TYPED)
    player.locator(".player-marker-list > summary").click()
    moments_list = player.get_by_role("list", name="Moments in the playback")
    expect(moments_list).to_contain_text(NOTE)
    expect(moments_list).to_contain_text(re.compile(r"Run 1: "))
    moments_list.get_by_role("button", name=re.compile(r"Run 1: ")).click()  # jumps to the Run's moment
    expect(player.locator('[data-player="where"]')).to_contain_text("Run 1")
    assert not errors, errors
