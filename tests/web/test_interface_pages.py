"""The challenge interface through the pages: catalogue cards and their filter, the workspace header,
and authoring a new draft from an interface's blank template."""

from __future__ import annotations

import html
import re
import uuid
from collections import Counter
from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.engine.builtin import find_builtin
from app.engine.interfaces import INTERFACES
from app.scenarios.models import Scenario, ScenarioVersion
from app.scenarios.service import published_cards
from web.support import Account, csrf_from, sign_in

CARD = re.compile(r'<li class="card">.*?</li>', re.S)


def _signed_in(web_app: FastAPI, account: Account) -> TestClient:
    client = TestClient(web_app)
    sign_in(client, account.email)
    return client


def _cards(page: str) -> list[str]:
    return CARD.findall(page)


def _newest(db: Session, slug: str) -> ScenarioVersion:
    db.expire_all()
    return db.scalars(select(ScenarioVersion).join(Scenario).where(Scenario.slug == slug)
                      .order_by(ScenarioVersion.version.desc()).limit(1)).one()


def test_each_card_names_its_interface_and_the_filter_counts_them(
        web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version) -> None:
    client = _signed_in(web_app, make_account("candidate"))
    page = client.get("/candidate").text
    counts = Counter(card.interface for card in published_cards(session=db))
    assert counts["gpt-v1"] and counts["llama-v1"]
    cards = _cards(page)
    assert len(cards) == sum(counts.values())
    llama = next(card for card in cards if "/challenges/norm-and-gate" in card)
    warm = next(card for card in cards if "/challenges/warm-up" in card)
    assert "Llama style (llama-v1)" in llama and "GPT-2 style (gpt-v1)" not in llama
    assert "GPT-2 style (gpt-v1)" in warm
    # One plain link per interface (and one for all), each with its count; no JavaScript needed.
    assert 'href="http://testserver/candidate" aria-current="page"' in page
    assert f"All interfaces <span class=\"count\">({sum(counts.values())})</span>" in page
    for name, interface in INTERFACES.items():
        link = f'href="http://testserver/candidate?interface={name}"'
        assert link in page and f'{interface.label} <span class="count">({counts[name]})</span>' in page


def test_the_interface_filter_keeps_one_interfaces_challenges(
        web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version) -> None:
    client = _signed_in(web_app, make_account("candidate"))
    llama = {card.slug for card in published_cards(session=db) if card.interface == "llama-v1"}
    page = client.get("/candidate", params={"interface": "llama-v1"}).text
    cards = _cards(page)
    assert len(cards) == len(llama) and all("Llama style (llama-v1)" in card for card in cards)
    assert "/challenges/norm-and-gate" in page and "/challenges/warm-up" not in page
    assert 'href="http://testserver/candidate?interface=llama-v1" aria-current="page"' in page
    assert INTERFACES["llama-v1"].description in page

    gpt = client.get("/candidate?interface=gpt-v1").text
    assert "/challenges/warm-up" in gpt and "/challenges/norm-and-gate" not in gpt

    unknown = client.get("/candidate", params={"interface": "<b>gpt-v9</b>"})
    assert unknown.status_code == 200
    assert "There is no interface called “&lt;b&gt;gpt-v9&lt;/b&gt;”; showing every challenge." in unknown.text
    assert len(_cards(unknown.text)) == len(_cards(client.get("/candidate").text))


def test_the_workspace_header_names_the_interface(
        web_app: FastAPI, make_account: Callable[..., Account], published_version) -> None:
    client = _signed_in(web_app, make_account("candidate"))
    header = re.search(r'<header class="ws-header">.*?</header>', client.get("/challenges/norm-and-gate").text, re.S)
    assert header is not None and "Llama style (llama-v1)" in header.group(0)
    header = re.search(r'<header class="ws-header">.*?</header>', client.get("/challenges/warm-up").text, re.S)
    assert header is not None and "GPT-2 style (gpt-v1)" in header.group(0)


def _admin(web_client: TestClient, make_account: Callable[..., Account]) -> str:
    sign_in(web_client, make_account("admin").email)
    return csrf_from(web_client.get("/admin/scenarios").text)


def test_the_new_scenario_form_offers_every_interface_gpt_v1_first(
        web_client: TestClient, make_account: Callable[..., Account], published_version) -> None:
    _admin(web_client, make_account)
    page = web_client.get("/admin/scenarios").text
    select_html = re.search(r'<select id="new-interface" name="interface".*?</select>', page, re.S)
    assert select_html is not None
    options = re.findall(r'<option value="([^"]+)"( selected)?>([^<]+)</option>', select_html.group(0))
    assert [(value, label) for value, _selected, label in options] == [
        (name, interface.label) for name, interface in INTERFACES.items()]
    assert [value for value, selected, _label in options if selected] == ["gpt-v1"]
    assert '<label for="new-interface">Interface</label>' in page
    assert "Llama style (llama-v1)" in page  # norm-and-gate's row


def test_a_blank_llama_v1_draft_starts_from_its_template(
        web_client: TestClient, make_account: Callable[..., Account], published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = f"llama-{uuid.uuid4().hex[:8]}"
    created = web_client.post("/admin/scenarios", data={"slug": slug, "title": "Rotary trouble", "source": "blank",
                                                        "interface": "llama-v1", "csrf_token": token},
                              follow_redirects=False)
    assert created.status_code == 303, created.text[:500]
    assert created.headers["location"].endswith(f"/admin/scenarios/{slug}/versions/1/edit")
    content = _newest(db, slug).content
    template = find_builtin(INTERFACES["llama-v1"].template_scenario)
    assert template is not None
    assert content["interface"] == "llama-v1" and content["bugs"] == []
    assert content["solution_files"] == template.solution_files and content["files"] == list(template.files)

    # Left out, the interface is gpt-v1's, as before the choice existed.
    plain = f"gpt-{uuid.uuid4().hex[:8]}"
    web_client.post("/admin/scenarios", data={"slug": plain, "title": "Plain", "source": "blank", "csrf_token": token},
                    follow_redirects=False)
    gpt = _newest(db, plain).content
    gpt_template = find_builtin(INTERFACES["gpt-v1"].template_scenario)
    assert gpt["interface"] == "gpt-v1" and gpt_template is not None
    assert gpt["solution_files"] == gpt_template.solution_files


def test_a_fork_keeps_its_sources_interface(
        web_client: TestClient, make_account: Callable[..., Account], published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    source = _newest(db, "norm-and-gate")
    slug = f"fork-{uuid.uuid4().hex[:8]}"
    forked = web_client.post("/admin/scenarios", data={
        "slug": slug, "title": "Norms again", "source": f"norm-and-gate:{source.version}",
        "interface": "gpt-v1", "csrf_token": token}, follow_redirects=False)  # the select applies to blanks only
    assert forked.status_code == 303, forked.text[:500]
    content = _newest(db, slug).content
    assert content["interface"] == "llama-v1" and content["solution_files"] == source.content["solution_files"]


def test_an_unknown_interface_is_refused_on_the_page_keeping_what_was_typed(
        web_client: TestClient, make_account: Callable[..., Account], published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = f"odd-{uuid.uuid4().hex[:8]}"
    refused = web_client.post("/admin/scenarios", data={"slug": slug, "title": "Mamba & friends", "source": "blank",
                                                        "interface": "mamba-v1", "csrf_token": token},
                              follow_redirects=False)
    assert refused.status_code == 422
    assert ("interface: &#39;mamba-v1&#39; is not a challenge interface; choose one of gpt-v1, llama-v1, pipeline-v1."
            in refused.text)
    assert 'role="alert"' in refused.text
    assert f'value="{slug}"' in refused.text and 'value="Mamba &amp; friends"' in refused.text
    assert db.scalar(select(Scenario.id).where(Scenario.slug == slug)) is None
    assert html.escape("Llama style (llama-v1)") in refused.text  # the form is whole again
