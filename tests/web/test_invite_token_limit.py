"""Wrong invite tokens count per client address: past the window's limit its invite links answer 429."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core.security import new_token
from app.core.settings import get_settings
from app.interviews import service
from app.scenarios.models import ScenarioVersion
from web.support import Account, unique_email


def _invite(db: Session, make_account: Callable[..., Account], version: ScenarioVersion) -> str:
    _interview, token = service.create_interview(
        session=db, interviewer=make_account("interviewer").user, candidate_email=unique_email("invited"),
        scenario_version=version, time_limit_minutes=45, expires_in=timedelta(days=3),
    )
    db.commit()
    return token


def test_wrong_invite_tokens_are_counted_per_address_and_then_refused_with_429(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    limit = get_settings().invite_token_failures_per_ip
    token = _invite(db, make_account, published_version)
    guesser = TestClient(web_app, client=("203.0.113.7", 40000))
    assert guesser.get(f"/invite/{token}").status_code == 200  # a right link counts for nothing
    for n in range(limit):  # pages and the API share the count
        wrong = new_token()
        answer = guesser.get(f"/invite/{wrong}") if n % 2 else guesser.post(f"/api/invites/{wrong}")
        assert answer.status_code == 404, (n, answer.status_code)

    page = guesser.get(f"/invite/{new_token()}")
    assert page.status_code == 429 and int(page.headers["Retry-After"]) > 0
    assert page.headers["content-type"].startswith("text/html") and "Too many invite links" in page.text
    api = guesser.post(f"/api/invites/{new_token()}")
    assert api.status_code == 429 and "Too many invite links" in api.json()["detail"]
    assert guesser.get(f"/invite/{token}").status_code == 429  # the address waits, whatever it sends now

    # Another address is not held up by this one's guesses.
    other = TestClient(web_app, client=("198.51.100.9", 40000))
    assert other.get(f"/invite/{token}").status_code == 200
    # A signed-in candidate's pending invite carries no token and is not counted.
    assert guesser.get("/invite/interviews/999999999").status_code != 429
