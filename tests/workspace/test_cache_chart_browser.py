"""The Cache agreement chart in real Chromium: a llama-v1 result whose cache disagrees after the prefill.

The result is stored on an attempt directly (no grading), then the challenge page shows it in its
Results panel: both charts are images with their names and descriptions, the table opens and holds the
values, and axe finds nothing serious in the panel.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from services import require_chromium
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session
from web.axe import describe, serious_violations
from web.live_server import LiveServer, live_server, sign_in_as

import app.models  # noqa: F401  (every table, so foreign keys resolve)
from app.attempts.models import Attempt
from app.core.db import utcnow
from app.scenarios.models import Scenario, ScenarioVersion
from app.users.models import User

from .helpers import graded_result

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLUG = "norm-and-gate"  # the first llama-v1 challenge
FLAT = [1e-7, 2e-7, 1e-7, 3e-7, *[2e-7, 1e-7] * 14]
JUMP = [1e-7, 2e-7, 1e-7, 3e-7, 2e-7, *[1.6 + 0.03 * i for i in range(27)]]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    with live_server(tmp_path_factory.mktemp("cache") / "data", WARM_REFERENCES="0", WARM_SANDBOXES="0") as running:
        yield running


def stored_attempt(server: LiveServer, yours: list[float]) -> int:
    """A finished submit of the candidate on the llama challenge, with a result that has cache curves."""
    result = graded_result(leak=False) | {"scenario": SLUG}
    result["training"] |= {"cache_agreement": {"prefill": 4, "diffs": yours},
                           "baseline_cache_agreement": {"prefill": 4, "diffs": FLAT}}
    engine = create_engine(f"sqlite:///{server.data_dir / 'dojo.sqlite3'}")
    with Session(engine) as db:
        user = db.scalars(select(User).where(User.email == server.users["candidate"])).one()
        version = db.scalars(select(ScenarioVersion).join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
                             .where(Scenario.slug == SLUG, ScenarioVersion.status == "published")).one()
        attempt = Attempt(user_id=user.id, scenario_version_id=version.id, kind="submit", status="failed",
                          files={}, result=result, score=0.0, finished_at=utcnow())
        db.add(attempt)
        db.commit()
        attempt_id = attempt.id
    engine.dispose()
    return attempt_id


def test_a_disagreeing_cache_reads_as_a_named_chart_with_words_and_a_table(
    server: LiveServer, browser: Any, errors: list[str], tmp_path: Path
) -> None:
    attempt_id = stored_attempt(server, JUMP)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.extend([message.text] if message.type == "error" else []))
    sign_in_as(page, server, server.users["candidate"], server.password)
    page.goto(f"{server.url}/challenges/{SLUG}?attempt={attempt_id}")
    results = page.get_by_role("region", name="Results")
    expect(results.locator(f'#results-body[data-attempt="{attempt_id}"]')).to_be_attached()

    yours = results.get_by_role("img", name="Cache agreement of your model")
    baseline = results.get_by_role("img", name="Cache agreement of the baseline model")
    expect(yours).to_be_visible()
    expect(baseline).to_be_visible()
    expect(yours).to_have_accessible_description(
        "Cached and full forward disagree from position 5 on (27 of 32 positions beyond 1e-4; "
        "max 2.38 at position 31).")
    expect(baseline).to_have_accessible_description("Cached and full forward agree (max 3e-7).")
    # The broken curve leaves the x axis after the prefill; the baseline's stays on it.
    assert results.locator("polyline.line-cache").count() == 1
    assert results.locator("polyline.line-base-cache").count() == 1

    results.get_by_text("Cache agreement as a table").click()
    table = results.get_by_role("table", name="Max |Δ logit| between the cached and the full forward, per position")
    expect(table).to_be_visible()
    # The panel redrawn for the same attempt (as a poll does when its progress or tips change) keeps the
    # table the reader opened open.
    page.evaluate("""async () => {
        const body = document.getElementById("results-body");
        const answer = await fetch(body.dataset.panelUrl, {headers: {"HX-Request": "true"}});
        window.dojoPanels.results.swap(await answer.text());
    }""")
    expect(table).to_be_visible()
    expect(table.get_by_role("columnheader")).to_have_text(["Position", "Your model", "Baseline model"])
    expect(table.get_by_role("row").nth(1)).to_contain_text("0 (prefill)")
    expect(table.get_by_role("row", name="5 1.6 1e-7")).to_be_visible()

    found = serious_violations(page, "#results")
    assert not found, f"axe on the Results panel:\n{describe(found)}"
    page.set_viewport_size({"width": 900, "height": 1000})  # columns: the page scrolls, not the pane
    results.locator(".cache-agreement").screenshot(path=str(tmp_path / "cache-agreement.png"))
    ctx.close()
    assert not errors, f"browser errors: {errors}"
