"""Issue 31's candidate workspace in real Chromium: verdicts that agree with their table, scores people can read,
hints that ask first and never charge for a fixed bug, room to work at 1440x900, errors that point at the line,
and a usable phone layout at 390x844.

Results are stored on attempts directly (no grading): every test reads what the page makes of a stored
result, so the module needs one server and no sandbox.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from services import require_chromium
from sqlalchemy import create_engine, select, update
from sqlalchemy.orm import Session
from web.axe import describe, serious_violations
from web.live_server import LiveServer, live_server, sign_in_as

import app.models  # noqa: F401  (every table, so foreign keys resolve)
from app.attempts.models import Attempt
from app.core.db import utcnow
from app.engine.builtin import find_builtin
from app.interviews.models import Interview
from app.scenarios.models import Scenario, ScenarioVersion
from app.users.models import User
from app.workspace.results import TIPS_WAIT

from .helpers import graded_result

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IDE = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
FLAT = [1e-7, 2e-7, 1e-7, 3e-7, *[2e-7, 1e-7] * 14]
JUMP = [1e-7, 2e-7, 1e-7, 3e-7, 2e-7, *[1.6 + 0.03 * i for i in range(27)]]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "test-shots"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    with live_server(tmp_path_factory.mktemp("room") / "data", WARM_REFERENCES="0", WARM_SANDBOXES="0") as running:
        yield running


def db_of(server: LiveServer) -> Session:
    return Session(create_engine(f"sqlite:///{server.data_dir / 'dojo.sqlite3'}"))


def version_of(db: Session, slug: str) -> ScenarioVersion:
    return db.scalars(select(ScenarioVersion).join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
                      .where(Scenario.slug == slug, ScenarioVersion.status == "published")).one()


def store(server: LiveServer, slug: str, *, kind: str = "submit", status: str = "failed", result: dict | None = None,
          error: dict | None = None, score: float | None = 0.0, hints_used: dict | None = None,
          interview_id: int | None = None, who: str = "candidate") -> int:
    """A finished attempt of `who` on `slug` with this stored result; its id. It finished longer ago than the
    page waits for coaching tips, so the page does not poll it and redraw Results under a test's clicks."""
    with db_of(server) as db:
        user = db.scalars(select(User).where(User.email == server.users[who])).one()
        attempt = Attempt(user_id=user.id, scenario_version_id=version_of(db, slug).id, kind=kind, status=status,
                          files={}, result=result, error=error, score=score, hints_used=hints_used or {},
                          interview_id=interview_id, finished_at=utcnow() - TIPS_WAIT - timedelta(seconds=1))
        db.add(attempt)
        db.commit()
        return attempt.id


def bugs(slug: str, fixed: set[int]) -> list[dict]:
    return [{"id": b.id, "component": b.component, "title": b.title, "fixed": n in fixed}
            for n, b in enumerate(find_builtin(slug).bugs)]


@pytest.fixture
def page(browser: Any, server: LiveServer, errors: list[str]) -> Iterator[Any]:
    """A signed-in candidate at 1440x900; the test fails on any browser error."""
    ctx = browser.new_context(viewport=IDE)
    tab = ctx.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda m: m.type == "error" and errors.append(m.text))
    sign_in_as(tab, server, server.users["candidate"], server.password)
    yield tab
    ctx.close()
    assert not errors, f"browser errors: {errors}"


def open_attempt(page: Any, server: LiveServer, slug: str, attempt_id: int) -> Any:
    page.goto(f"{server.url}/challenges/{slug}?attempt={attempt_id}")
    results = page.get_by_role("region", name="Results")
    expect(results.locator(f'#results-body[data-attempt="{attempt_id}"]')).to_be_attached()
    return results


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


# ---- 1. A verdict never contradicts its table ----

def test_a_run_is_judged_by_the_checks_it_shows_and_a_submit_counts_hidden_failures_by_component(
    page: Any, server: LiveServer
) -> None:
    # A Run of code whose hidden checks fail: the grader stored "failed", but the Run shows only public checks.
    run_result = graded_result(status="failed") | {"kind": "run"}
    run_result["tests"] = [t | {"passed": True} for t in run_result["tests"] if t["public"]]
    run_id = store(server, "warm-up", kind="run", status="failed", result=run_result)
    results = open_attempt(page, server, "warm-up", run_id)
    expect(results.locator(".verdict-label")).to_have_text("Passed")
    expect(results).to_contain_text("Public checks pass (2 of 2). Submit runs the hidden checks.")
    expect(results).not_to_contain_text("Failed")
    history = page.locator("#history-body")
    row = history.get_by_role("row").filter(has=page.get_by_role("link", name="Results of Run 1", exact=True))
    expect(row).to_contain_text("passed (public checks)")
    api = page.request.get(f"{server.url}/api/attempts/{run_id}").json()
    assert api["status"] == "passed" and api["verdict"]["checks"] == "public", api["verdict"]
    assert api["points"] is None and api["bugs_fixed"] is None  # a Run scores nothing

    # A failing Submit: which components failed, how many, never a hidden check's id or message.
    submit_id = store(server, "warm-up", result=graded_result(status="failed") | {"bugs": bugs("warm-up", set())})
    results = open_attempt(page, server, "warm-up", submit_id)
    expect(results.locator(".verdict-label")).to_have_text("Failed")
    expect(results).to_contain_text("2 checks failed: 1 in Attention, 1 in Training run.")
    expect(results).not_to_contain_text("attention.causal-perturb")
    expect(results).not_to_contain_text("changing later tokens")
    api = page.request.get(f"{server.url}/api/attempts/{submit_id}").json()
    assert api["verdict"] == {"status": "failed", "checks": "all",
                              "summary": "2 checks failed: 1 in Attention, 1 in Training run."}
    assert "changing later tokens" not in json.dumps(api)


# ---- 3. Scores people can read ----

def test_a_graded_submit_shows_bugs_fixed_points_and_hint_deductions_and_a_pass_what_next(
    page: Any, server: LiveServer
) -> None:
    leaky = find_builtin("leaky-mask")
    result = graded_result() | {"bugs": bugs("leaky-mask", {0, 2})}
    # Two of four bugs fixed, two hint levels taken on one of them: 25 * (1 - 2 * 0.15) + 25 points.
    submit_id = store(server, "leaky-mask", result=result, score=0.425, hints_used={leaky.bugs[0].id: 2})
    results = open_attempt(page, server, "leaky-mask", submit_id)
    score = results.get_by_role("group", name="Score of this submission")
    expect(score).to_contain_text("2 of 4 bugs fixed · 42.5 points of 100 (hints: −7.5 points)")
    api = page.request.get(f"{server.url}/api/attempts/{submit_id}").json()
    assert (api["points"], api["bugs_fixed"], api["bugs_total"]) == (42.5, 2, 4)

    passed = graded_result(status="passed") | {"bugs": bugs("leaky-mask", {0, 1, 2, 3})}
    passed_id = store(server, "leaky-mask", status="passed", result=passed, score=1.0)
    results = open_attempt(page, server, "leaky-mask", passed_id)
    expect(results.get_by_role("group", name="Score of this submission")).to_contain_text(
        "4 of 4 bugs fixed · 100 points of 100, no hint deductions")
    expect(results).to_contain_text("Every check passes. What next:")
    expect(results.get_by_role("link", name="Pick another challenge")).to_be_visible()
    expect(results.get_by_role("link", name="your notes")).to_have_attribute("href", "#notes")

    # Every planted bug's checks pass but a change outside them still fails: the bugs cannot be judged yet.
    unsure = [b | {"verdict": "cannot_tell", "reason": "cannot tell yet"} for b in bugs("leaky-mask", set())]
    unsure_id = store(server, "leaky-mask", result=graded_result() | {"bugs": unsure}, score=0.0)
    results = open_attempt(page, server, "leaky-mask", unsure_id)
    score = results.get_by_role("group", name="Score of this submission")
    expect(score).to_contain_text("0 of 4 bugs fixed")
    expect(score).to_contain_text("4 bugs cannot be judged yet, so they score nothing for now")


# ---- 4. Hints that are fair ----

def test_a_hint_skips_bugs_the_last_graded_submit_fixed_asks_first_with_its_cost(page: Any, server: LiveServer) -> None:
    slug = "attention-zoo"
    # The latest graded submit fixed bug 1; a later submit that ended in an error judged nothing.
    store(server, slug, result=graded_result() | {"bugs": bugs(slug, {0})}, score=0.25)
    store(server, slug, status="error", result=graded_result() | {"bugs": bugs(slug, set())},
          error={"kind": "timeout", "message": "the grading ran out of time"})
    page.goto(f"{server.url}/challenges/{slug}")
    hints = page.locator("#hints-body")
    expect(hints).to_contain_text("hint 1 of 3 for bug 2, the first bug your last graded submit did not fix")
    button = hints.get_by_role("button", name="Get a hint (−3.75 points)…")
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    button.click()
    expect(hints.locator(".hint-list")).to_have_count(0)  # dismissed: nothing revealed, nothing charged
    assert asked and "costs 3.75 points" in asked[0] and "bug 2" in asked[0], asked
    page.once("dialog", lambda d: d.accept())
    button.click()
    expect(hints.locator(".hint-list li")).to_have_count(1)
    expect(hints.locator(".hint-list")).to_contain_text("Bug 2 · hint 1 of 3")
    expect(hints).to_contain_text("hint 2 of 3 for bug 2")


def test_while_the_matrix_is_computed_the_hint_button_says_so(page: Any, server: LiveServer) -> None:
    slug = "label-trouble"
    with db_of(server) as db:  # this version's per-bug verdicts are still being computed
        version = version_of(db, slug)
        db.execute(update(ScenarioVersion).where(ScenarioVersion.id == version.id).values(reference=None))
        db.commit()
    store(server, slug, result=graded_result() | {"bugs": bugs(slug, set()), "provisional": True})
    page.goto(f"{server.url}/challenges/{slug}")
    button = page.locator("#hints-body").get_by_role("button", name="waiting for per-bug verdicts")
    expect(button).to_be_disabled()
    expect(page.locator("#hints-body")).to_contain_text("Hints wait for those verdicts")


# ---- 5. Room to work ----

def test_the_panes_resize_by_dragging_and_remember_it_the_brief_folds_and_results_expand(
    page: Any, server: LiveServer
) -> None:
    slug = "cache-drift"
    result = graded_result(leak=False) | {"scenario": slug, "bugs": bugs(slug, {0})}
    result["training"] |= {"cache_agreement": {"prefill": 4, "diffs": JUMP},
                           "baseline_cache_agreement": {"prefill": 4, "diffs": FLAT}}
    attempt_id = store(server, slug, result=result, score=0.33)
    results = open_attempt(page, server, slug, attempt_id)
    page.evaluate("() => localStorage.clear()")
    page.reload()
    side = page.get_by_role("complementary", name="Brief, notes, hints and history")
    before = side.bounding_box()["width"]
    split = page.get_by_role("separator", name="Width of the brief pane")
    box = split.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 140, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    widened = side.bounding_box()["width"]
    assert widened > before + 100, (before, widened)
    page.reload()  # remembered for this user
    assert abs(page.get_by_role("complementary", name="Brief, notes, hints and history").bounding_box()["width"]
               - widened) < 2
    # The keyboard moves a split too.
    output_split = page.get_by_role("separator", name="Width of the Results pane")
    width = int(output_split.get_attribute("aria-valuenow"))
    output_split.focus()
    page.keyboard.press("ArrowLeft")
    assert int(output_split.get_attribute("aria-valuenow")) == width + 24

    fold = page.get_by_role("button", name="Hide brief")
    fold.click()
    expect(page.get_by_role("complementary", name="Brief, notes, hints and history")).to_be_hidden()
    expect(page.get_by_role("button", name="Show brief")).to_have_attribute("aria-expanded", "false")
    page.get_by_role("button", name="Show brief").click()
    expect(page.get_by_role("complementary", name="Brief, notes, hints and history")).to_be_visible()

    # Long lines wrap by default: the editor never scrolls sideways under its line numbers.
    wrap = page.get_by_role("button", name="Wrap lines")
    expect(wrap).to_have_attribute("aria-pressed", "true")
    page.get_by_label("Editor: model.py").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nlong_name = " + " + ".join(f"value_{i}" for i in range(40)))
    scroller = page.locator(".tab-panel:not([hidden]) .cm-scroller")
    assert scroller.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    wrap.click()
    expect(wrap).to_have_attribute("aria-pressed", "false")
    page.wait_for_function("""() => {
      const e = document.querySelector('.tab-panel:not([hidden]) .cm-scroller');
      return e.scrollWidth > e.clientWidth; }""")
    wrap.click()

    # Expanded, Results holds the loss curves and each Cache agreement chart whole.
    page.get_by_role("button", name="Expand results").click()
    expect(page.get_by_role("button", name="Expand results")).to_have_attribute("aria-pressed", "true")
    results = page.get_by_role("region", name="Results")
    pane = results.bounding_box()
    for name in ("Loss curves", "Cache agreement of your model", "Cache agreement of the baseline model"):
        chart = results.get_by_role("img", name=name)
        chart.scroll_into_view_if_needed()
        pane, found = results.bounding_box(), chart.bounding_box()
        assert found["width"] <= pane["width"] and found["height"] <= pane["height"] - 40, (name, found, pane)
        assert pane["x"] <= found["x"] and found["x"] + found["width"] <= pane["x"] + pane["width"], (name, found, pane)
    results.get_by_role("img", name="Cache agreement of your model").scroll_into_view_if_needed()
    shot(page, "results-expanded-1440")
    found = serious_violations(page, "#workspace")
    assert not found, f"axe on the workspace:\n{describe(found)}"
    page.get_by_role("button", name="Reset layout").click()
    expect(page.get_by_role("button", name="Expand results")).to_have_attribute("aria-pressed", "false")


def test_the_layout_bar_shown_after_load_never_moves_the_panes(page: Any, server: LiveServer) -> None:
    # At 1280 px a long title, the countdown and the layout bar take two rows. workspace-layout.js shows the bar
    # after the first paint; its row was kept from the start, or the panes would jump 41 px down under a first click.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server.url}/challenges/padded-truths")
    fold = page.get_by_role("button", name="Hide brief")
    expect(fold).to_be_visible()
    bar, title = page.locator("#layout-bar").bounding_box(), page.get_by_role("heading", level=1).bounding_box()
    assert bar["y"] >= title["y"] + title["height"], (bar, title)  # a row of its own
    grid = page.locator(".ws-grid")
    shown = grid.bounding_box()["y"]
    page.evaluate("() => { document.getElementById('layout-bar').hidden = true; }")  # as before the script ran
    expect(fold).to_be_hidden()  # kept in place, but neither seen nor in the accessibility tree
    assert grid.bounding_box()["y"] == shown


def test_on_a_1366_laptop_the_file_tabs_keep_one_row_and_typing_moves_no_editor_button(
    page: Any, server: LiveServer
) -> None:
    # pipeline-v1's four tabs took two rows and the editor's buttons and save status three (11 lines of code showed).
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{server.url}/challenges/pipeline-composite")
    tabs = page.get_by_role("tab").all()
    assert len(tabs) == 4 and len({round(tab.bounding_box()["y"]) for tab in tabs}) == 1
    assert page.locator(".tab-panel:not([hidden]) .cm-editor").bounding_box()["height"] >= 300  # 15 lines
    buttons = ("Save", "Reset file to starter…", "Download files", "Dark editor", "Wrap lines")

    def boxes() -> dict[str, Any]:  # Download files is a link styled as a button
        editor = page.get_by_role("region", name="Files")
        return {name: editor.get_by_role("button", name=name, exact=True)
                .or_(editor.get_by_role("link", name=name, exact=True)).bounding_box() for name in buttons}

    before = boxes()
    assert len({round(box["y"]) for box in before.values()}) == 2, before
    status = page.locator("#save-status")
    shown = status.inner_text()
    page.get_by_label("Editor: data.py").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\n# the status changes as I type")
    expect(status).not_to_have_text(shown)
    assert boxes() == before  # the status comes after the buttons: its new text moves none of them


# ---- 6. Errors that point at the line ----

def test_errors_say_their_place_once_and_link_the_line(page: Any, server: LiveServer) -> None:
    slug = "leaky-mask"
    syntax = store(server, slug, kind="run", status="error", result=None, score=None, error={
        "kind": "syntax", "message": "SyntaxError: invalid syntax (model.py, line 7) (model.py:7)"})
    results = open_attempt(page, server, slug, syntax)
    alert = results.locator(".alert-error")
    expect(alert).to_contain_text("Syntax error in model.py, line 7: invalid syntax")
    expect(alert).not_to_contain_text("(model.py:7)")
    expect(alert).not_to_contain_text("SyntaxError")

    crashed = graded_result(status="failed") | {"kind": "run"}
    crashed["tests"] = [{"id": "general.forward-shapes", "component": "general", "passed": False, "public": True,
                         "message": "forward raised NameError: name 'scale' is not defined (model.py:12)"}]
    crashed["training"] |= {"error": "train_step raised ValueError: bad shape (train.py:5)"}
    run_id = store(server, slug, kind="run", result=crashed)
    results = open_attempt(page, server, slug, run_id)
    expect(results).to_contain_text("forward raised NameError: name 'scale' is not defined")
    expect(results).not_to_contain_text("(model.py:12)")
    results.get_by_role("link", name="model.py line 12").click()
    expect(page.get_by_role("tab", name="model.py")).to_have_attribute("aria-selected", "true")
    expect(page.locator(".tab-panel:not([hidden]) .cm-activeLineGutter")).to_have_text("12")
    expect(results.get_by_role("link", name="Show train.py line 5 in the editor")).to_be_visible()

    # A crash only a hidden check saw: its place in the candidate's file, never the check's message.
    hidden = graded_result(status="failed") | {"bugs": bugs(slug, set())}
    hidden["tests"][1] |= {"message": "forward raised KeyError: 'secret' (model.py:20)"}
    hidden_id = store(server, slug, result=hidden)
    results = open_attempt(page, server, slug, hidden_id)
    expect(results).to_contain_text("1 hidden check failed")
    expect(results).to_contain_text("A hidden check saw your code raise an error at model.py line 20")
    expect(results).not_to_contain_text("KeyError")
    results.get_by_role("link", name="model.py line 20").click()
    expect(page.locator(".tab-panel:not([hidden]) .cm-activeLineGutter")).to_have_text("20")

    # A cache call that raised says so, with the error; the prefill comes from the curve that was measured.
    cache = graded_result(leak=False) | {"scenario": "cache-drift", "bugs": bugs("cache-drift", set())}
    cache["training"] |= {"cache_agreement": {"prefill": 0, "diffs": [], "error": "RuntimeError: shapes differ"},
                          "baseline_cache_agreement": {"prefill": 4, "diffs": FLAT}}
    cache_id = store(server, "cache-drift", result=cache)
    results = open_attempt(page, server, "cache-drift", cache_id)
    expect(results).to_contain_text(
        "The cached call raised an error, so nothing was compared: RuntimeError: shapes differ")
    expect(results).not_to_contain_text("first 0 positions")
    expect(results).to_contain_text("the first 4 positions as one prefill")


# ---- 9. Phone ----

def test_on_a_phone_sections_are_tabs_the_editor_is_one_tap_away_and_run_and_submit_stay(
    browser: Any, server: LiveServer, errors: list[str]
) -> None:
    ctx = browser.new_context(viewport=PHONE)
    tab = ctx.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    sign_in_as(tab, server, server.users["candidate"], server.password)
    tab.goto(f"{server.url}/challenges/rotary-road")
    sections = tab.get_by_role("navigation", name="Workspace sections")
    expect(sections.get_by_role("link", name="Brief")).to_have_attribute("aria-current", "true")  # a new workspace
    tab.mouse.wheel(0, 5000)  # to the end of the brief: Run and Submit are still on screen
    for name in ("Run", "Submit"):
        box = tab.get_by_role("button", name=name, exact=True).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (name, box)
    tab.mouse.wheel(0, -5000)
    sections.get_by_role("link", name="Code").click()
    expect(tab.get_by_role("region", name="Brief")).to_be_hidden()
    editor = tab.locator(".tab-panel:not([hidden]) .cm-editor").bounding_box()
    assert editor["y"] < PHONE["height"] - 200, editor  # in view without scrolling past the brief
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(tab, "workspace-390-code")
    found = serious_violations(tab, "#workspace")
    assert not found, f"axe on the phone workspace:\n{describe(found)}"
    # A Run shows Results (answered here without grading: the page swaps in what the server sends).
    tab.route(f"{server.url}/challenges/rotary-road/attempts*", lambda route: route.fulfill(
        status=200, content_type="text/html",
        body='<div id="results-body" class="results-body"><p class="empty">Nothing run yet.</p></div>'))
    tab.get_by_role("button", name="Run", exact=True).click()
    expect(tab.get_by_role("region", name="Results")).to_be_visible()
    expect(sections.get_by_role("link", name="Results")).to_have_attribute("aria-current", "true")
    expect(tab.locator("#editor")).to_be_hidden()
    tab.reload()  # remembered
    expect(sections.get_by_role("link", name="Results")).to_have_attribute("aria-current", "true")
    ctx.close()
    assert not errors, errors


def test_on_a_phone_review_tables_scroll_inside_their_box(browser: Any, server: LiveServer) -> None:
    with db_of(server) as db:
        candidate = db.scalars(select(User).where(User.email == server.users["candidate"])).one()
        interviewer = db.scalars(select(User).where(User.email == server.users["interviewer"])).one()
        now = utcnow()
        interview = Interview(interviewer_id=interviewer.id, candidate_id=candidate.id,
                              candidate_email=candidate.email, scenario_version_id=version_of(db, "leaky-mask").id,
                              invite_token_hash="r" * 64, invite_expires_at=now, invite_used_at=now, started_at=now)
        db.add(interview)
        db.commit()
        interview_id = interview.id
    for fixed in ({0}, {0, 1}, {0, 1, 2}):
        store(server, "leaky-mask", result=graded_result() | {"bugs": bugs("leaky-mask", fixed)},
              score=len(fixed) / 4, interview_id=interview_id)
    ctx = browser.new_context(viewport=PHONE)
    tab = ctx.new_page()
    sign_in_as(tab, server, server.users["interviewer"], server.password)
    tab.goto(f"{server.url}/interviewer/interviews/{interview_id}")
    wraps = tab.locator(".table-wrap")
    expect(wraps.first).to_be_visible()
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    boxes = tab.evaluate("""() => [...document.querySelectorAll('.table-wrap')].filter(w => w.offsetParent)
      .map(w => ({right: w.getBoundingClientRect().right, client: w.clientWidth, scroll: w.scrollWidth,
                  overflow: getComputedStyle(w).overflowX}))""")
    assert boxes and all(b["right"] <= PHONE["width"] for b in boxes), boxes
    assert all(b["overflow"] == "auto" for b in boxes if b["scroll"] > b["client"]), boxes
    ctx.close()
