"""The Results panel has one owner, and sits beside the code: real Chromium against a real `dojo serve` grading
in bubblewrap (warm standby sandboxes, one grading at a time, as in production).

Run then Submit at several gaps, a double-click on Submit, and Submit in two tabs (and on another device) each
end with the newest Submit's final verdict in #results-body, with no older attempt swapped in after it. At
1440x900 the workspace is an IDE: after Run the editor's cursor line and the verdict are both on screen, the
page has not scrolled, and axe finds nothing serious; at 900 px it is today's column layout. Without script,
Run still posts the form and comes back to the page.

Grading is real, so the tests share one server and keep each grading cheap: about a dozen gradings of the
tiny scenario's starter (tests/dispatch/tiny_scenario.py: warm-up's code and pages with the smallest training
run, half a warm-up grading's CPU), its reference computed before the server starts; the two-tab test grades
warm-up itself (it needs a Run still in flight when the other tab submits).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from dispatch.tiny_scenario import SLUG, publish_tiny, warm_reference
from playwright.sync_api import expect
from services import require_bwrap, require_chromium
from sqlalchemy import create_engine
from sqlalchemy.orm import Session
from web.axe import describe, serious_violations
from web.live_server import LiveServer, live_server, sign_in_as

import app.models  # noqa: F401  (every table, so foreign keys resolve)

pytestmark = [pytest.mark.browser, pytest.mark.bwrap, pytest.mark.slow]

WARM_UP = "warm-up"
GRADING_TIMEOUT_MS = 300_000  # gradings queue one at a time behind each other
FINAL = ("Passed", "Failed", "Error")
IDE = {"width": 1440, "height": 900}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    require_bwrap()
    # The tests below start about a dozen attempts within a minute or two: lift the per-minute limit, not the
    # one-in-flight-per-kind rule the two-tab test relies on.
    warm_reference()
    with live_server(tmp_path_factory.mktemp("panel") / "data", WARM_SANDBOXES="1",
                     ATTEMPTS_PER_USER_PER_MINUTE="200") as running:
        engine = create_engine(f"sqlite:///{running.data_dir / 'dojo.sqlite3'}")
        with Session(engine) as db:
            publish_tiny(session=db)
            db.commit()
        engine.dispose()
        yield running


@pytest.fixture
def context(browser: Any, server: LiveServer, errors: list[str]) -> Iterator[Any]:
    """A signed-in browser context at 1440x900; the test fails on any browser error."""
    ctx = browser.new_context(viewport=IDE)
    sign_in_as(watch(ctx.new_page(), errors), server, server.users["candidate"], server.password)
    yield ctx
    ctx.close()
    assert not errors, f"browser errors: {errors}"


def watch(page: Any, errors: list[str]) -> Any:
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and not m.text.startswith("Failed to load resource")
            and errors.append(m.text))
    page.on("response", lambda r: r.status >= 400 and errors.append(f"{r.status} {r.url}"))
    return page


def open_workspace(page: Any, server: LiveServer, slug: str = SLUG) -> Any:
    """The challenge page with its scripts running, and a record of every attempt #results-body showed."""
    page.goto(f"{server.url}/challenges/{slug}")
    page.wait_for_function("() => window.DojoPanel !== undefined")
    page.evaluate("""() => {
      window.shownAttempts = [];
      const results = document.getElementById('results');
      new MutationObserver(() => {
        const body = document.getElementById('results-body');
        window.shownAttempts.push(body ? body.dataset.attempt : '');
      }).observe(results, {childList: true});
    }""")
    return page


def attempt_post(kind: str) -> Any:
    """A predicate for the answer to a Run (kind "run") or Submit ("submit") the page posted."""
    def matches(response: Any) -> bool:
        request = response.request
        return (request.method == "POST" and response.url.split("?")[0].endswith("/attempts")
                and re.search(rf'name="kind"\r?\n\r?\n{kind}\r?\n', request.post_data or "") is not None)
    return matches


def attempt_in(answer: Any) -> int:
    """The id of the attempt an answer's Results panel shows."""
    found = re.search(r'id="results-body"[^>]*data-attempt="(\d+)"', answer.text())
    assert found, f"not answered with the Results panel: {answer.text()[:300]}"
    return int(found.group(1))


def click_and_get_attempt(page: Any, name: str) -> int:
    """Click Run or Submit and return the id of the attempt its answer shows."""
    with page.expect_response(attempt_post(name.lower())) as answer:
        page.get_by_role("button", name=name, exact=True).click()
    return attempt_in(answer.value)


def expect_final(page: Any, attempt_id: int, kind: str = "Submit") -> None:
    """#results-body ends on this attempt with its final verdict, polling done."""
    body = page.locator(f'#results-body[data-attempt="{attempt_id}"][data-poll="no"]')
    expect(body).to_be_attached(timeout=GRADING_TIMEOUT_MS)
    status = body.get_attribute("data-status")
    assert status in FINAL, status
    expect(body.locator(".verdict-label")).to_have_text(status)
    # Named by its number in the workspace, never by its database id.
    expect(body.locator(".attempt-name")).to_contain_text(f"{kind} {body.get_attribute('data-number')} ·")
    expect(body).not_to_contain_text(f"#{attempt_id}")


def name_of(server: LiveServer, attempt_id: int) -> str:
    """ "Run 3": how the pages name an attempt, counted from the database as app/attempts/numbers.py does."""
    with sqlite3.connect(server.data_dir / "dojo.sqlite3") as db:
        kind, user, version, interview = db.execute(
            "select kind, user_id, scenario_version_id, interview_id from attempts where id = ?",
            (attempt_id,)).fetchone()
        number = db.execute("select count(*) from attempts where user_id = ? and scenario_version_id = ?"
                            " and interview_id is ? and id <= ?", (user, version, interview, attempt_id)).fetchone()[0]
    return f"{ {'run': 'Run', 'submit': 'Submit', 'scratch': 'Scratch run'}[kind] } {number}"


def submissions(server: LiveServer) -> int:
    with sqlite3.connect(server.data_dir / "dojo.sqlite3") as db:
        return int(db.execute("select count(*) from attempts where kind = 'submit'").fetchone()[0])


# Three moments for the Submit: before the Run's answer is in, while the Run's polls are in flight, and
# about when a tiny grading of the Run ends.
@pytest.mark.parametrize("gap_ms", [0, 300, 2000])
def test_run_then_submit_ends_on_the_submits_verdict(server: LiveServer, context: Any, errors: list[str],
                                                     gap_ms: int) -> None:
    page = open_workspace(watch(context.new_page(), errors), server)
    with page.expect_response(attempt_post("run")) as run_answer:
        page.get_by_role("button", name="Run", exact=True).click()
        page.wait_for_timeout(gap_ms)  # the Run's answer may or may not be in; its polls may be in flight
        submit = click_and_get_attempt(page, "Submit")
    run = attempt_in(run_answer.value)
    assert run < submit
    expect_final(page, submit)
    # Once the Submit was shown, nothing older replaced it: not a late answer of the Run's polls.
    shown = page.evaluate("() => window.shownAttempts")
    assert str(submit) in shown and set(shown[shown.index(str(submit)):]) == {str(submit)}, shown
    # The Run was graded first (one grading at a time) and History lists both; the panel stays on the Submit.
    expect(page.locator("#history-body")).to_contain_text(f"Results of {name_of(server, run)}")
    assert page.locator("#results-body").get_attribute("data-attempt") == str(submit)


def test_a_double_click_on_submit_makes_one_submission(server: LiveServer, context: Any, errors: list[str]) -> None:
    page = open_workspace(watch(context.new_page(), errors), server)
    posts: list[str] = []
    page.on("request", lambda r: r.method == "POST" and r.url.split("?")[0].endswith("/attempts")
            and posts.append(r.url))
    before = submissions(server)
    with page.expect_response(attempt_post("submit")) as answer:
        page.get_by_role("button", name="Submit", exact=True).dblclick()
    submit = attempt_in(answer.value)
    expect_final(page, submit)
    assert len(posts) == 1, posts  # the button was disabled while its request was in flight
    assert submissions(server) == before + 1
    expect(page.locator("#workspace-notice")).to_have_text("")  # no "still being graded" refusal either
    expect(page.get_by_role("button", name="Submit", exact=True)).to_be_enabled()


def test_submit_in_two_tabs_and_on_another_device(
    server: LiveServer, browser: Any, context: Any, errors: list[str]
) -> None:
    # Warm-up itself, not the tiny scenario: the other device learns of the newer submission while it polls
    # its own Run, and a tiny grading (about 2 s) can end before that poll comes.
    first = open_workspace(watch(context.new_page(), errors), server, WARM_UP)
    second = open_workspace(watch(context.new_page(), errors), server, WARM_UP)
    device_context = browser.new_context(viewport=IDE)
    device = watch(device_context.new_page(), errors)
    sign_in_as(device, server, server.users["candidate"], server.password)
    open_workspace(device, server, WARM_UP)

    # The other device runs; while its run is graded (and polled), the first tab submits.
    run = click_and_get_attempt(device, "Run")
    submit = click_and_get_attempt(first, "Submit")
    # The second tab of the same browser is told at once; the other device at its next poll of its run.
    for page in (second, device):
        newer = page.locator("#results-newer")
        expect(newer).to_contain_text(f"A newer submission, {name_of(server, submit)}, was started in another tab",
                                      timeout=GRADING_TIMEOUT_MS)
        newer.get_by_role("button", name="Show it").click()
    for page in (first, second, device):
        expect_final(page, submit)
    expect(device.locator("#history-body")).to_contain_text(f"Results of {name_of(server, run)}")
    device_context.close()

    # Now the second tab submits; the first is told and follows when asked.
    again = click_and_get_attempt(second, "Submit")
    assert again > submit
    expect(first.locator("#results-newer")).to_contain_text(f"A newer submission, {name_of(server, again)},")
    first.locator("#results-newer").get_by_role("button", name="Show it").click()
    for page in (first, second):
        expect_final(page, again)
        expect(page.locator("#results-newer")).to_have_text("")


def _in_viewport(page: Any, locator: Any) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return (box is not None and box["height"] > 0 and box["y"] >= 0 and box["x"] >= 0
            and box["y"] + box["height"] <= size["height"] and box["x"] + box["width"] <= size["width"])


def test_at_1440_the_verdict_appears_beside_the_code(server: LiveServer, context: Any, errors: list[str]) -> None:
    page = open_workspace(watch(context.new_page(), errors), server)
    editor = page.get_by_label("Editor: model.py")
    editor.locator(".cm-line").nth(24).click(position={"x": 8, "y": 5})  # the cursor on line 25
    cursor_line = page.locator(".tab-panel:not([hidden]) .cm-activeLine")
    expect(cursor_line).to_have_count(1)
    with page.expect_response(attempt_post("run")) as answer:
        page.keyboard.press("Control+Enter")  # Run, from the editor
    run = attempt_in(answer.value)
    expect_final(page, run, kind="Run")
    # The page itself does not scroll at all: each pane scrolls inside.
    assert page.evaluate("() => [window.scrollY, document.documentElement.scrollHeight]") == [0, IDE["height"]]
    assert _in_viewport(page, cursor_line), "the editor's cursor line left the screen"
    assert _in_viewport(page, page.locator("#results-body .verdict")), "the verdict is not on screen"
    results = page.get_by_role("region", name="Results").bounding_box()
    code = page.locator(".editor-card").bounding_box()
    assert results["x"] >= code["x"] + code["width"], "Results is not beside the editor"
    # What a poll swapped in is live: a coaching tip's rating buttons work (htmx processed the new panel).
    tip = page.locator("#results-body article.tip").first
    tip.get_by_role("button", name="Helpful", exact=True).click()
    expect(page.locator("#results-body").get_by_role("status").filter(
        has_text="Thanks, your rating is saved.")).to_be_visible()
    # The brief, notes, hints and history are one click away in the side pane.
    page.get_by_role("navigation", name="Workspace sections").get_by_role("link", name="History").click()
    expect(page.get_by_role("region", name="History")).to_be_in_viewport()
    found = serious_violations(page)
    assert not found, f"axe on the IDE layout:\n{describe(found)}"

    # The scratch console has its own queue: its output shows without touching Results.
    page.get_by_role("button", name="Run scratch").click()
    console = page.get_by_role("region", name="Scratch console")
    expect(console).to_contain_text("Exit status: 0", timeout=GRADING_TIMEOUT_MS)
    assert page.locator("#results-body").get_attribute("data-attempt") == str(run)
    assert _in_viewport(page, page.locator("#console-body .exit-status"))


def test_at_900_px_the_workspace_keeps_its_columns(server: LiveServer, browser: Any, errors: list[str]) -> None:
    ctx = browser.new_context(viewport={"width": 900, "height": 900})
    page = watch(ctx.new_page(), errors)
    sign_in_as(page, server, server.users["candidate"], server.password)
    open_workspace(page, server)
    code = page.locator(".editor-card").bounding_box()
    results = page.get_by_role("region", name="Results").bounding_box()
    assert results["y"] >= code["y"] + code["height"], "Results should come below the editor"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 900
    expect(page.get_by_role("navigation", name="Workspace sections")).to_be_hidden()
    ctx.close()
    assert not errors, errors


def test_without_script_run_posts_the_form_and_comes_back(server: LiveServer, browser: Any) -> None:
    ctx = browser.new_context(viewport=IDE, java_script_enabled=False)
    page = ctx.new_page()
    sign_in_as(page, server, server.users["candidate"], server.password)
    page.goto(f"{server.url}/challenges/{SLUG}")
    page.get_by_label("How did you find the bugs?").fill("Read the loss at step 0.")
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_url(re.compile(rf".*/challenges/{SLUG}\?attempt=\d+#results$"))
    attempt = re.search(r"attempt=(\d+)", page.url)
    assert attempt is not None
    expect(page.locator("#results-body")).to_have_attribute("data-attempt", attempt.group(1))
    expect(page.get_by_label("How did you find the bugs?")).to_have_value("Read the loss at step 0.")
    ctx.close()
