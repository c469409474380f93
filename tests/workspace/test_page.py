"""The challenge page and its Results panel as a candidate sees them (server side; Chromium has its own tests)."""

from __future__ import annotations

import html
from collections.abc import Callable

from fastapi import FastAPI
from markupsafe import escape
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.support import Account

from app.attempts.models import Attempt
from app.coaching.models import AI_NOTICE, CoachingTip
from app.engine.builtin import find_builtin
from app.http.templating import templates
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import get_published
from app.workspace.results import build_view

from .helpers import HTMX, graded_result, page_csrf, signed_in, text_of

PAGE = "/challenges/leaky-mask"


def test_challenge_page_has_the_contract_names_and_the_starter(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    client = signed_in(web_app, make_account("candidate"))
    body, _ = page_csrf(client, PAGE)
    leaky = find_builtin("leaky-mask")
    for name in ("model.py", "data.py", "scratch.py"):
        assert 'role="tab" id=' in body and f'data-file="{name}">{name}</button>' in body
        assert f'aria-label="Editor: {name}"' in body
    assert str(escape(leaky.starter_files["data.py"])) in body
    for question in leaky.questions:
        assert f'>{escape(question["text"])}</label>' in body
    assert '<h2 id="results-heading">Results</h2>' in body and 'aria-labelledby="results-heading"' in body
    assert ">Run</button>" in body and ">Submit</button>" in body
    assert "<h1>" in body and "The Leaky Mask" in body
    # The brief is Markdown rendered without raw HTML; the solution never reaches the page.
    assert "<script>" not in body.split("</head>")[1].replace('<script src=', "")
    assert leaky.solution_files["model.py"] not in body


def test_dashboard_card_titles_link_to_their_challenge(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    client = signed_in(web_app, make_account("candidate"))
    body = client.get("/candidate").text
    assert '<a href="http://testserver/challenges/leaky-mask">The Leaky Mask</a>' in body


def test_unknown_challenge_is_a_404_page(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    client = signed_in(web_app, make_account("candidate"))
    response = client.get("/challenges/no-such-challenge")
    assert response.status_code == 404 and "no published challenge" in response.text


def test_a_finished_attempt_shows_verdicts_charts_maps_and_tips_without_hidden_ids(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    attempt = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="failed",
                      files={}, result=graded_result(), score=0.25)
    db.add(attempt)
    db.flush()
    db.add(CoachingTip(attempt_id=attempt.id, source="rules", component="attention", framing="Frame it.",
                       pro_tip="Perturb later tokens.", steps=["a", "b", "c"]))
    db.commit()
    client = signed_in(web_app, me)
    panel = client.get(f"{PAGE}/attempts/{attempt.id}/panel", headers=HTMX)
    assert panel.status_code == 200
    fragment = panel.text
    opening = fragment.strip().split(">")[0]
    assert opening.startswith("<div id=\"results-body\"") and 'data-poll="no"' in opening
    assert '<strong class="verdict-label">Failed</strong>' in fragment
    assert 'role="img" aria-label="Loss curves"' in fragment
    assert 'aria-label="Influence map of your trained model"' in fragment
    assert 'aria-label="Influence map of the baseline model"' in fragment
    assert "the model sees the future" in fragment  # the leaky map has influence above the diagonal
    assert "Pro tip:" in fragment and AI_NOTICE in html.unescape(fragment)
    # Finished: History and the hint on offer are swapped in too (out of band).
    assert '<div id="history-body" hx-swap-oob="true">' in fragment
    assert '<div id="hints-body" hx-swap-oob="true">' in fragment
    words = text_of(fragment)
    assert "1 hidden check failed" in words and "the final training loss 0.006" in words
    for secret in ("attention.causal-perturb", "changing later tokens", "mask-sees-next-token"):
        assert secret not in fragment
    page = client.get(f"{PAGE}?attempt={attempt.id}").text
    assert 'aria-label="Loss curves"' in page


def test_tests_that_were_not_run_read_as_not_run_with_their_reason_once(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    """An unmet interface item: its dependent tests are neither failures nor passes, for either viewer."""
    reason = "the gpt-v1 interface expects model(idx) to return (logits, None), but it returned (2, 1, 37)"
    not_run = {"passed": False, "applicable": False, "status": "not_run", "reason": reason,
               "message": f"not run: {reason}"}
    result = graded_result() | {"tests": [
        {"id": "general.interface", "component": "general", "passed": False, "public": True,
         "message": "the code does not follow the gpt-v1 interface"},
        {"id": "attention.causal-perturb", "component": "attention", **not_run},
        {"id": "attention.causal-gradient", "component": "attention", **not_run},
        {"id": "attention.random-token-leak", "component": "attention", "passed": True, "status": "passed"},
        {"id": "generation.top-k", "component": "generation", **not_run, "public": True},
    ]}
    me = make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    attempt = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="failed",
                      files={}, result=result, score=0.0)
    db.add(attempt)
    db.commit()
    words = text_of(signed_in(web_app, me).get(f"{PAGE}/attempts/{attempt.id}/panel", headers=HTMX).text)
    assert "1 passed, 2 not run" in words and "2 hidden checks not run: " + reason in words
    assert words.count(reason) == 2  # once for the two hidden checks, once for the public one
    assert "hidden check failed" not in words and "Hidden check not run" not in words
    assert "0 passed, 1 not run" in words and "1 failed, 0 passed" in words
    assert "attention.causal" not in words
    # Staff (the review page's copy of the panel) see each test that was not run under its id.
    panel = build_view(session=db, attempt=attempt, staff=True)
    staff_words = text_of(templates.env.get_template("workspace/_results.html").render(
        panel=panel, panel_staff=True, csrf_token=""))
    assert "attention.causal-perturb not run: " + reason in staff_words
    assert "attention.causal-gradient not run: " + reason in staff_words and "1 passed, 2 not run" in staff_words


def test_an_attempt_in_flight_polls_and_shows_its_place_and_stage(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    queued = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="run", status="queued", files={})
    running = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="running",
                      files={}, progress={"stage": "training", "k": 75, "n": 200})
    db.add_all([running, queued])
    db.commit()
    client = signed_in(web_app, me)
    waiting = client.get(f"{PAGE}/attempts/{queued.id}/panel", headers=HTMX).text
    assert 'data-poll="yes"' in waiting and "Waiting for a grader" in waiting
    assert "Cancel this run" in waiting
    busy = client.get(f"{PAGE}/attempts/{running.id}/panel", headers=HTMX).text
    assert "Tiny training run: step 75 of 200" in busy and '<progress max="200" value="75"' in busy


def test_another_users_attempt_is_not_found(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    owner, other = make_account("candidate"), make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    attempt = Attempt(user_id=owner.user.id, scenario_version_id=version.id, kind="run", status="queued", files={})
    db.add(attempt)
    db.commit()
    client = signed_in(web_app, other)
    assert client.get(f"{PAGE}/attempts/{attempt.id}/panel").status_code == 404
    assert client.get(f"{PAGE}/attempts/{attempt.id}/diff").status_code == 404
    assert db.scalar(select(Attempt.status).where(Attempt.id == attempt.id)) == "queued"


def test_a_syntax_error_links_to_its_file_and_line_in_the_editor(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    error = {"kind": "syntax", "message": "SyntaxError: expected ':' (model.py:42)"}
    attempt = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="run", status="error", files={},
                      error=error, result={"status": "error", "error": error})
    db.add(attempt)
    db.commit()
    fragment = signed_in(web_app, me).get(f"{PAGE}/attempts/{attempt.id}/panel", headers=HTMX).text
    assert '<strong class="verdict-label">Error</strong>' in fragment
    assert 'class="goto-line" data-file="model.py" data-line="42"' in fragment
    assert "Show model.py line 42 in the editor" in fragment


def test_a_just_finished_attempt_keeps_polling_until_its_tips_arrive(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    from datetime import timedelta

    from app.core.db import utcnow

    me = make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    fresh = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="failed", files={},
                    result=graded_result(), finished_at=utcnow())
    old = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="run", status="failed", files={},
                  result=graded_result(), finished_at=utcnow() - timedelta(minutes=5))
    db.add_all([fresh, old])
    db.commit()
    client = signed_in(web_app, me)
    first = client.get(f"{PAGE}/attempts/{fresh.id}/panel", headers=HTMX).text.strip().split(">")[0]
    assert 'data-poll="yes"' in first
    db.add(CoachingTip(attempt_id=fresh.id, source="rules", component=None, framing="F.", pro_tip="P.",
                       steps=["a", "b", "c"]))
    db.commit()
    with_tips = client.get(f"{PAGE}/attempts/{fresh.id}/panel", headers=HTMX).text.strip().split(">")[0]
    assert 'data-poll="no"' in with_tips
    stale = client.get(f"{PAGE}/attempts/{old.id}/panel", headers=HTMX).text.strip().split(">")[0]
    assert 'data-poll="no"' in stale


def test_every_planted_bug_fixed_but_checks_failing_says_why_and_regressions_count_hidden_checks(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    result = graded_result()
    result["bugs"] = [{"id": b.id, "component": b.component, "title": b.title, "fixed": True}
                      for b in find_builtin("leaky-mask").bugs]
    result["tests"] += [{"id": f"generation.hidden-{n}", "component": "generation", "passed": False,
                         "message": "secret", "public": False} for n in range(3)]
    result["regressions"] = ["generation.hidden-0", "generation.hidden-1", "generation.hidden-2"]
    attempt = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="failed",
                      files={}, result=result, score=1.0)
    db.add(attempt)
    db.commit()
    words = text_of(signed_in(web_app, me).get(f"{PAGE}/attempts/{attempt.id}/panel", headers=HTMX).text)
    assert "4 of 4 bugs fixed · 100 points of 100, no hint deductions" in words
    assert "Every planted bug is fixed, yet some checks still fail" in words
    assert "Regressions (checks the starter passed that your code fails): 3 hidden generation checks." in words
    assert "generation.hidden" not in words and "What next" not in words
