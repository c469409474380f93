"""The candidate workspace in a real Chromium against a real `dojo serve` that grades in bubblewrap.

One server and one browser for the module. The flow: open The Leaky Mask from the dashboard, edit by
keyboard, Run and watch progress, Submit by keyboard alone, see Passed with the chart, the maps and
tips, reload and keep the draft, read a history diff, print a batch in the scratch console (every run
in a pool thread's warm standby sandbox, as in production); a second tab that is behind is told; an
interview refuses work after its deadline. axe-core finds nothing serious; the browser console stays
clean; a 390 px screenshot is taken.
"""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from services import require_bwrap, require_chromium
from web.axe import describe, serious_violations
from web.live_server import LiveServer, live_server, sign_in_as

from app.engine.builtin import find_builtin

pytestmark = [pytest.mark.browser, pytest.mark.bwrap, pytest.mark.slow]

GRADING_TIMEOUT_MS = 300_000  # the first grading also computes the scenario's reference
QUESTIONS = {
    "How did you find the bugs?": "The label shift one I caught fast because I've been burned by that before.",
    "How did you verify your fixes?": "Ran it on a tiny dataset just to sanity check.",
    "What was your approach, and what would you check first next time?":
        "Isolate each module and test it independently before touching the full forward pass.",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    require_bwrap()
    # Warm sandboxes as in production: Run, Submit and scratch runs go to the pool thread's standby.
    with live_server(tmp_path_factory.mktemp("workspace") / "data", WARM_SANDBOXES="1") as running:
        yield running


def _warm_jobs(server: LiveServer) -> int:
    """Jobs the server ran in a warm standby sandbox so far (its log says so for each)."""
    return (server.data_dir / "server.log").read_text(errors="replace").count("job ran in a warm standby sandbox")


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests' screenshots go (scripts/screenshots.py makes the ones in docs/)."""
    return tmp_path_factory.mktemp("shots")


def _watch(page: Any, errors: list[str]) -> Any:
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and not m.text.startswith("Failed to load resource")
            and errors.append(m.text))
    page.on("response", lambda r: r.status >= 400 and r.request.resource_type != "document"
            and errors.append(f"{r.status} {r.url}"))
    return page


@pytest.fixture
def context(browser: Any, errors: list[str]) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield ctx
    ctx.close()
    assert not errors, f"browser console errors: {errors}"


def _replace_file(page: Any, name: str, text: str) -> None:
    """Select the file's tab and replace its whole text with the keyboard."""
    page.get_by_role("tab", name=name).click()
    editor = page.get_by_label(f"Editor: {name}")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def _no_serious_axe(page: Any, what: str) -> None:
    found = serious_violations(page)
    assert not found, f"axe on {what}:\n{describe(found)}"


def _results(page: Any) -> Any:
    return page.get_by_role("region", name="Results")


def test_candidate_fixes_the_leaky_mask_and_sees_it_pass(
    server: LiveServer, context: Any, errors: list[str], shots: Path
) -> None:
    leaky = find_builtin("leaky-mask")
    page = _watch(context.new_page(), errors)
    sign_in_as(page, server, server.users["candidate"], server.password)
    page.get_by_role("link", name="The Leaky Mask").click()
    page.wait_for_url(re.compile(r".*/challenges/leaky-mask$"))
    expect(page.get_by_role("tab", name="model.py")).to_have_attribute("aria-selected", "true")
    # The tabs follow the ARIA pattern: arrow keys move between files.
    page.get_by_role("tab", name="model.py").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="data.py")).to_be_focused()
    expect(page.get_by_role("tab", name="data.py")).to_have_attribute("aria-selected", "true")
    _no_serious_axe(page, "the challenge page")
    page.screenshot(path=str(shots / "workspace.png"), full_page=True)

    _replace_file(page, "data.py", leaky.solution_files["data.py"])
    expect(page.locator("#save-status")).to_have_text(re.compile(r"Saved as revision [1-9]"), timeout=15_000)
    page.get_by_role("button", name="Run", exact=True).click()
    # Live progress while the run waits and grades.
    expect(_results(page).locator(".stage")).to_be_visible(timeout=30_000)
    expect(_results(page).locator(".verdict-label")).to_have_text(re.compile("Passed|Failed"),
                                                                   timeout=GRADING_TIMEOUT_MS)

    _replace_file(page, "model.py", leaky.solution_files["model.py"])
    for question, answer in QUESTIONS.items():
        page.get_by_label(question).fill(answer)
    # Submit by keyboard: Ctrl+Shift+Enter from the editor.
    warm_before = _warm_jobs(server)
    page.get_by_label("Editor: model.py").click()
    page.keyboard.press("Control+Shift+Enter")
    # The harness's own progress (sent from inside the standby sandbox) reaches the page.
    expect(_results(page).locator(".stage")).to_have_text(
        re.compile("Probe|Tiny training run|Random-token leak probe|Checking"), timeout=GRADING_TIMEOUT_MS)
    expect(_results(page).locator(".verdict-label")).to_have_text("Passed", timeout=GRADING_TIMEOUT_MS)
    assert _warm_jobs(server) > warm_before
    expect(page.locator("#results-status")).to_have_text("Results: Passed")
    expect(page.get_by_role("img", name="Loss curves")).to_be_visible()
    expect(page.get_by_role("img", name="Influence map of your trained model")).to_be_visible()
    expect(page.get_by_role("img", name="Influence map of the baseline model")).to_be_visible()
    expect(_results(page).get_by_text("Pro tip").first).to_be_visible()
    expect(_results(page).get_by_text("AI-generated suggestions, not part of the candidate's original notes.",
                                      exact=False).first).to_be_visible()
    _no_serious_axe(page, "the results")
    page.screenshot(path=str(shots / "workspace-results.png"), full_page=True)

    page.reload()
    page.get_by_role("tab", name="model.py").click()
    content = page.get_by_label("Editor: model.py").inner_text()
    assert "GPTConfig" in content and "diagonal=1" not in content
    verify = "How did you verify your fixes?"
    expect(page.get_by_label(verify)).to_have_value(QUESTIONS[verify])

    # History: the submit against the starter shows the planted mask line removed.
    history = page.get_by_role("region", name="History")
    history.get_by_role("link", name=re.compile("Diff")).first.click()
    page.get_by_role("link", name="Against the starter").click()
    diff = page.get_by_role("table").first
    expect(diff).to_contain_text("diagonal=1")
    _no_serious_axe(page, "the diff page")
    page.go_back()
    page.go_back()


def test_scratch_console_prints_a_batch(server: LiveServer, context: Any, errors: list[str]) -> None:
    page = _watch(context.new_page(), errors)
    sign_in_as(page, server, server.users["candidate"], server.password)
    page.goto(f"{server.url}/challenges/leaky-mask")
    page.get_by_role("tab", name="scratch.py").click()
    warm_before = _warm_jobs(server)
    page.get_by_role("button", name="Run scratch").click()
    console = page.get_by_role("region", name="Scratch console")
    expect(console.get_by_label("Standard output")).to_contain_text("x[0]: ", timeout=GRADING_TIMEOUT_MS)
    expect(console).to_contain_text("Exit status: 0")
    assert _warm_jobs(server) > warm_before


def test_another_tab_or_device_that_is_behind_is_told(
    server: LiveServer, browser: Any, context: Any, errors: list[str]
) -> None:
    first = _watch(context.new_page(), errors)
    sign_in_as(first, server, server.users["candidate"], server.password)
    first.goto(f"{server.url}/challenges/warm-up")
    same_browser = _watch(context.new_page(), errors)
    same_browser.goto(f"{server.url}/challenges/warm-up")
    other_device = browser.new_context()
    device = _watch(other_device.new_page(), errors)
    sign_in_as(device, server, server.users["candidate"], server.password)
    device.goto(f"{server.url}/challenges/warm-up")

    _replace_file(first, "model.py", "# edited in the first tab\n")
    expect(first.locator("#save-status")).to_have_text(re.compile("Saved as revision"), timeout=15_000)
    # A second tab of the same browser hears of it at once and, having no edits of its own, follows.
    expect(same_browser.locator("#save-status")).to_contain_text("changed in another tab", timeout=15_000)
    expect(same_browser.get_by_label("Editor: model.py")).to_contain_text("# edited in the first tab")
    # Another device with edits of its own is told, and overwrites nothing.
    device.get_by_role("tab", name="data.py").click()
    device.get_by_label("Editor: data.py").click()
    device.keyboard.type("# edited on another device")
    expect(device.locator("#behind-banner")).to_be_visible(timeout=15_000)
    device.get_by_role("button", name="Load the latest version").click()
    device.get_by_role("tab", name="model.py").click()
    expect(device.get_by_label("Editor: model.py")).to_contain_text("# edited in the first tab")
    other_device.close()


def test_narrow_screen_and_keyboard_only_submit(
    server: LiveServer, browser: Any, errors: list[str], shots: Path
) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = _watch(ctx.new_page(), errors)
    sign_in_as(page, server, server.users["candidate"], server.password)
    page.goto(f"{server.url}/challenges/warm-up")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways at 390 px ({width} px wide)"
    page.screenshot(path=str(shots / "workspace-390.png"), full_page=True)
    # Keyboard alone: Tab from the top of the page to Submit, then Enter.
    page.keyboard.press("Tab")
    for _ in range(80):
        if page.evaluate("() => document.activeElement && document.activeElement.id") == "submit-button":
            break
        page.keyboard.press("Escape")  # leaves an editor's Tab-indent mode, so Tab moves on
        page.keyboard.press("Tab")
    else:
        pytest.fail("Submit is not reachable with the Tab key")
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none", "the focused Submit button shows no focus ring"
    page.keyboard.press("Enter")
    expect(_results(page).locator(".verdict")).to_be_visible(timeout=30_000)
    ctx.close()
    assert not errors, errors


def _api(server: LiveServer, method: str, path: str, body: dict[str, Any], token: str | None = None) -> Any:
    request = urllib.request.Request(f"{server.url}{path}", data=json.dumps(body).encode(), method=method,
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_interview_workspace_refuses_work_after_the_deadline(
    server: LiveServer, browser: Any, errors: list[str]
) -> None:
    token = _api(server, "POST", "/api/auth/token",
                 {"email": server.users["interviewer"], "password": server.password})["access_token"]
    created = _api(server, "POST", "/api/interviews", {"candidate_email": "late@dojo.example",
                                                       "scenario": "warm-up", "time_limit_minutes": 5}, token)
    ctx = browser.new_context()
    page = _watch(ctx.new_page(), errors)
    page.goto(created["invite_url"])
    page.get_by_label("New password").fill("late-candidate-password")
    page.get_by_label("Repeat the password").fill("late-candidate-password")
    page.get_by_role("button", name=re.compile("Set password")).click()
    page.wait_for_url(re.compile(rf".*/invite/interviews/{created['id']}/lobby"))  # the clock starts at Start
    page.get_by_role("button", name="Start the interview").click()
    page.wait_for_url(re.compile(rf".*/interviews/{created['id']}/workspace$"))
    expect(page.get_by_text("Time left in this interview")).to_be_visible()
    expect(page.locator("#countdown")).to_have_text(re.compile(r"^[45]:\d\d left$"))
    # Six minutes pass (moved on the server's clock record), then the candidate clicks Submit.
    with sqlite3.connect(server.data_dir / "dojo.sqlite3") as db:
        db.execute("update interviews set started_at = datetime(started_at, '-6 minutes') where id = ?",
                   (created["id"],))
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#workspace-notice")).to_contain_text("Time is up: this interview ended at")
    page.reload()
    expect(page.get_by_role("button", name="Submit")).to_be_disabled()
    expect(page.get_by_text("The editor is read-only now.")).to_be_visible()
    ctx.close()
    assert not errors, errors
