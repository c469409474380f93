"""Real Chromium against a real `dojo serve`: the product owner's sample, seen, rated and aggregated.

A leaky-mask submit whose label shift is still broken (a real grading, from the stored gradings) with the
three sample notes is coached by the same code the worker runs; the candidate sees one block per note in the
workspace, the first flagging the label-shift claim; rates one with htmx and one with JavaScript off; an admin
sees the ratings per rule; the coaching report prints without the site's menus.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from services import require_chromium
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.live_server import CHROMIUM_ARGS, LiveServer, live_server

import app.models  # noqa: F401  (every table, so foreign keys resolve)
from app.attempts.models import Attempt
from app.coaching.models import AI_NOTICE
from app.coaching.service import coach_attempt
from app.core.db import make_engine
from app.scenarios.service import get_published
from app.users.models import User

from .conftest import graded
from .notes_corpus import SAMPLE

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    with live_server(tmp_path_factory.mktemp("coaching") / "data") as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: LiveServer) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def attempt_id(server: LiveServer) -> int:
    """The sample submit, graded and coached, in the live server's database."""
    engine = make_engine(f"sqlite:///{server.data_dir / 'dojo.sqlite3'}")
    with Session(engine) as session:
        user_id = session.scalar(select(User.id).where(User.email == server.users["candidate"]))
        version = get_published(session=session, slug="leaky-mask")
        assert user_id is not None and version is not None
        result = graded("leaky-mask", "mutant:labels-not-shifted").result
        attempt = Attempt(user_id=user_id, scenario_version_id=version.id, kind="submit", status="failed",
                          files={}, notes=SAMPLE, result=result.to_dict(), score=0.75)
        session.add(attempt)
        session.flush()
        coach_attempt(session=session, attempt_id=attempt.id)
        session.commit()
        found = attempt.id
    engine.dispose()
    return found


def _signed_in(browser: object, server: LiveServer, role: str, errors: list[str], **options: object) -> object:
    page = browser.new_context(**options).new_page()  # type: ignore[attr-defined]
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.url}/sign-in")
    page.get_by_label("Email").fill(server.users[role])
    page.get_by_label("Password").fill(server.password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()
    return page


def test_sample_notes_are_answered_rated_and_aggregated(browser: object, server: LiveServer, attempt_id: int) -> None:
    errors: list[str] = []
    page = _signed_in(browser, server, "candidate", errors)
    page.goto(f"{server.url}/challenges/leaky-mask?attempt={attempt_id}")
    results = page.get_by_role("region", name="Results")
    tips = results.locator("article.tip")
    about = [tips.nth(i).locator(".tip-about").inner_text() for i in range(3)]
    assert about == ["About your answer to “How did you find the bugs?”",
                     "About your answer to “How did you verify your fixes?”",
                     "About your answer to “What was your approach, and what would you check first next time?”"]
    first = tips.nth(0)
    assert "label shift" in first.locator(".tip-framing").inner_text()
    assert "still fails hidden checks" in first.locator(".tip-framing").inner_text()
    for n in range(tips.count()):
        tip = tips.nth(n)
        assert tip.get_by_text("Pro tip:").count() == 1
        assert tip.locator(".tip-notice").inner_text() == AI_NOTICE
        assert 3 <= tip.locator(".tip-steps li").count() <= 5
    assert "Your run started at loss" in tips.nth(1).inner_text()  # the tiny run, in the attempt's numbers

    # htmx: only the rated tip is swapped.
    first.get_by_role("button", name="Not helpful").click()
    page.get_by_role("status").filter(has_text="Thanks, your rating is saved.").wait_for()
    first = results.locator("article.tip").nth(0)
    assert first.get_by_role("button", name="Not helpful").get_attribute("aria-pressed") == "true"
    assert results.locator("article.tip").count() == tips.count()

    # Without JavaScript: a plain form post that comes back to this attempt.
    plain = _signed_in(browser, server, "candidate", errors, java_script_enabled=False)
    plain.goto(f"{server.url}/challenges/leaky-mask?attempt={attempt_id}")
    second = plain.locator("article.tip").nth(1)
    second.get_by_role("button", name="Helpful", exact=True).click()
    plain.wait_for_load_state()
    assert f"attempt={attempt_id}" in plain.url and "#tip-" in plain.url
    again = plain.locator("article.tip").nth(1)
    assert again.get_by_role("button", name="Helpful", exact=True).get_attribute("aria-pressed") == "true"

    # The coaching report, printable.
    page.get_by_role("link", name="Your coaching report for this challenge").click()
    page.get_by_role("heading", name="What to practise next").wait_for()
    page.emulate_media(media="print")
    assert not page.locator(".site-header").is_visible()
    assert page.get_by_role("heading", name="Strengths").is_visible()

    # The admin sees the ratings per rule, the least helpful first.
    admin = _signed_in(browser, server, "admin", errors)
    admin.get_by_role("link", name="Coaching").click()
    first_row = admin.locator("tbody tr").first
    assert first_row.locator("td").first.inner_text() == "note.claim-contradicted"
    assert first_row.locator("td").nth(4).inner_text() == "1"  # not helpful
    assert errors == []
