"""One grading at a time: a refusal names the challenge of the grading in progress and links its page."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI
from sqlalchemy.orm import Session
from web.support import Account

from app.engine.builtin import find_builtin
from app.scenarios.models import ScenarioVersion

from .helpers import HTMX, page_csrf, signed_in


def test_a_run_refused_while_another_challenge_grades_names_and_links_it(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, "/challenges/warm-up")
    client.post("/challenges/warm-up/attempts", data={"csrf_token": token, "kind": "run"}, headers=HTMX)
    title = find_builtin("warm-up").title  # type: ignore[union-attr]
    for headers in (HTMX, {}):  # the htmx notice, and the whole page again without script
        refused = client.post("/challenges/leaky-mask/attempts", data={"csrf_token": token, "kind": "run"},
                              headers=headers)
        assert f"Your run on {title} (attempt 1 there) is still being graded" in refused.text
        assert f'<a href="/challenges/warm-up">Open {title}</a>' in refused.text
