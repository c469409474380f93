"""Real Chromium: the catalogue's interface filter (plain links, also without JavaScript) and the admin's
interface choice for a new draft, each page free of serious axe-core findings."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from web.axe import describe, serious_violations
from web.live_server import LiveServer
from web.test_browser import _sign_in, browser, page, server  # noqa: F401

pytestmark = pytest.mark.browser


def _no_serious_axe(tab: Any, what: str) -> None:
    found = serious_violations(tab)
    assert not found, f"axe on {what}:\n{describe(found)}"


def _card_titles(tab: Any) -> list[str]:
    return tab.locator("ul.card-grid > li.card h3").all_inner_texts()


@pytest.mark.parametrize("javascript", [True, False], ids=["script", "no-script"])
def test_the_catalogue_filters_by_interface_with_plain_links(
        browser: Any, server: LiveServer, javascript: bool, console_errors: list[str]) -> None:  # noqa: F811
    context = browser.new_context(java_script_enabled=javascript)
    tab = context.new_page()
    tab.on("pageerror", lambda error: console_errors.append(str(error)))
    try:
        _sign_in(tab, server, server.users["candidate"], server.password)
        tab.wait_for_url(f"{server.url}/candidate")
        everything = _card_titles(tab)
        filters = tab.get_by_role("navigation", name="Filter challenges by interface")
        llama_link = filters.get_by_role("link", name=re.compile(r"^Llama style \(llama-v1\) \(\d+\)$"))
        count = int(re.search(r"\((\d+)\)$", llama_link.inner_text()).group(1))  # type: ignore[union-attr]
        assert 0 < count < len(everything)
        llama_link.click()
        tab.wait_for_url(f"{server.url}/candidate?interface=llama-v1")
        assert len(_card_titles(tab)) == count
        cards = tab.locator("ul.card-grid > li.card")
        assert all("Llama style (llama-v1)" in text for text in cards.all_inner_texts())
        assert filters.get_by_role("link", name=re.compile(r"^Llama style")).get_attribute("aria-current") == "page"
        if javascript:
            _no_serious_axe(tab, "the catalogue filtered to llama-v1")
        filters.get_by_role("link", name=re.compile(r"^All interfaces")).click()
        tab.wait_for_url(f"{server.url}/candidate")
        assert _card_titles(tab) == everything
    finally:
        context.close()


def test_the_admin_starts_a_llama_v1_draft_from_its_template(page: Any, server: LiveServer) -> None:  # noqa: F811
    slug = f"rope-{uuid.uuid4().hex[:6]}"
    _sign_in(page, server, server.users["admin"], server.password)
    page.wait_for_url(f"{server.url}/admin")
    page.goto(f"{server.url}/admin/scenarios")
    _no_serious_axe(page, "the scenario list")
    assert page.get_by_label("Interface").input_value() == "gpt-v1"
    page.get_by_label("Slug").fill(slug)
    page.get_by_label("Title").fill("Rotary trouble")
    page.get_by_label("Interface").select_option(label="Llama style (llama-v1)")
    page.get_by_label("Start from").select_option("blank")
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url(f"{server.url}/admin/scenarios/{slug}/versions/1/edit")
    page.goto(f"{server.url}/admin/scenarios")
    row = page.get_by_role("row").filter(has_text=slug)
    assert "Llama style (llama-v1)" in row.inner_text()
