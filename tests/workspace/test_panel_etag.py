"""The polled Results panel answers 304 while nothing it shows has changed, and a new ETag whenever it has.

Each step below changes the database as a worker, the coach, the candidate or a rejudge would, then asks
for the panel twice through the real app: once plainly (the full fragment, as a client without
If-None-Match gets it) and once with the ETag of the previous answer. The conditional answer must be a
304 exactly when the fragment is the same as before, and a 200 with that same fragment otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session
from web.support import Account

from app.attempts.models import Attempt
from app.coaching.models import CoachingTip, TipRating
from app.core.db import utcnow
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import get_published
from app.workspace.models import HintReveal

from .helpers import HTMX, graded_result, signed_in

PAGE = "/challenges/leaky-mask"


@dataclass
class Seen:
    etag: str
    body: str


def full_panel(client: TestClient, url: str) -> Seen:
    response = client.get(url, headers=HTMX)
    assert response.status_code == 200, response.text[:300]
    assert response.headers["cache-control"] == "no-cache"
    return Seen(etag=response.headers["etag"], body=response.text)


def conditional(client: TestClient, url: str, etag: str) -> tuple[int, str, str]:
    response = client.get(url, headers={**HTMX, "If-None-Match": etag})
    return response.status_code, response.headers.get("etag", ""), response.text


def set_attempt(db: Session, attempt_id: int, **values: object) -> None:
    db.execute(update(Attempt).where(Attempt.id == attempt_id).values(**values))
    db.commit()


def test_a_matching_if_none_match_is_a_304_with_no_body(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    attempt = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="running",
                      files={}, progress={"stage": "training", "k": 25, "n": 200})
    db.add(attempt)
    db.commit()
    client = signed_in(web_app, me)
    url = f"{PAGE}/attempts/{attempt.id}/panel"
    first = full_panel(client, url)
    assert "Tiny training run: step 25 of 200" in first.body
    assert first.etag.startswith('W/"') and first.etag.endswith('"')

    status, etag, body = conditional(client, url, first.etag)
    assert (status, etag, body) == (304, first.etag, "")
    # Any of several tags, and the strong form of the weak one, also match (RFC 9110 weak comparison).
    assert conditional(client, url, f'"other", {first.etag.removeprefix("W/")}')[0] == 304
    assert conditional(client, url, '"something-else"')[0] == 200

    set_attempt(db, attempt.id, progress={"stage": "training", "k": 50, "n": 200})
    db.expire_all()  # the app reads through this same session: forget what it loaded, as a new request would
    status, etag, body = conditional(client, url, first.etag)
    assert status == 200 and etag != first.etag and "Tiny training run: step 50 of 200" in body
    assert conditional(client, url, etag)[0] == 304


def test_the_etag_changes_exactly_when_the_fragment_does(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me, someone = make_account("candidate"), make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    ahead = Attempt(user_id=someone.user.id, scenario_version_id=version.id, kind="submit", status="queued",
                    files={})
    db.add(ahead)
    db.flush()
    mine = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="queued", files={})
    db.add(mine)
    db.commit()
    client = signed_in(web_app, me)
    url = f"{PAGE}/attempts/{mine.id}/panel"
    later: list[Attempt] = []
    tip_ids: list[int] = []

    def newer_attempt_of_mine() -> None:
        later.append(Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="run", status="queued",
                             files={}))
        db.add(later[-1])
        db.commit()

    def tips_arrive() -> None:
        tip = CoachingTip(attempt_id=mine.id, source="rules", component="attention", framing="Frame it.",
                          pro_tip="Perturb later tokens.", steps=["a", "b", "c"])
        db.add(tip)
        db.commit()
        tip_ids.append(tip.id)

    def rate_tip(helpful: bool) -> Callable[[], None]:
        def rate() -> None:
            rating = db.query(TipRating).filter_by(tip_id=tip_ids[0]).one_or_none()
            if rating is None:
                db.add(TipRating(tip_id=tip_ids[0], user_id=me.user.id, helpful=helpful, rules=[], source="rules"))
            else:
                rating.helpful, rating.updated_at = helpful, utcnow()
            db.commit()
        return rate

    def take_hint() -> None:
        db.add(HintReveal(user_id=me.user.id, scenario_version_id=version.id, bug_id="mask-sees-next-token",
                          level=1))
        db.commit()

    steps: list[tuple[str, Callable[[], None], bool]] = [
        # (what happens, the change, whether the candidate's panel shows it)
        ("the attempt ahead starts: ours is next", lambda: set_attempt(db, ahead.id, status="running"), True),
        ("a worker's heartbeat", lambda: set_attempt(db, mine.id, heartbeat_at=utcnow()), False),
        ("ours is taken by a worker", lambda: set_attempt(db, mine.id, status="running", tries=1,
                                                          progress={"stage": "sandbox"}), True),
        ("a new stage", lambda: set_attempt(db, mine.id, progress={"stage": "importing"}), True),
        ("training starts", lambda: set_attempt(db, mine.id, progress={"stage": "training", "k": 0, "n": 200}), True),
        ("a training step", lambda: set_attempt(db, mine.id, progress={"stage": "training", "k": 25, "n": 200}),
         True),
        ("the same step written again", lambda: set_attempt(db, mine.id, heartbeat_at=utcnow(),
                                                             progress={"stage": "training", "k": 25, "n": 200}),
         False),
        ("another tab starts a newer attempt", newer_attempt_of_mine, True),
        ("someone else's attempt finishes", lambda: set_attempt(db, ahead.id, status="passed",
                                                                  finished_at=utcnow()), False),
        ("the verdict", lambda: set_attempt(db, mine.id, status="failed", result=graded_result(), score=0.25,
                                            progress=None, finished_at=utcnow()), True),
        ("the coach's tips", tips_arrive, True),
        ("the candidate rates a tip", rate_tip(True), True),
        ("and changes their mind", rate_tip(False), True),
        ("a hint is taken (the hints refresh with the finished panel)", take_hint, True),
        ("the newer attempt runs (its History row changes)", lambda: set_attempt(db, later[0].id, status="running"),
         True),
        ("a rejudge changes the verdict", lambda: set_attempt(db, mine.id, status="passed",
                                                              result=graded_result(status="passed"), score=1.0), True),
    ]
    seen = full_panel(client, url)
    assert "1 ahead of yours" in seen.body
    for what, change, shown in steps:
        change()
        db.expire_all()  # the app reads through this same session: forget what it loaded, as a new request would
        now = full_panel(client, url)
        assert (now.body != seen.body) == shown, f"{what}: the fragment {'did not change' if shown else 'changed'}"
        status, etag, body = conditional(client, url, seen.etag)
        if shown:
            assert status == 200 and etag == now.etag != seen.etag and body == now.body, what
        else:
            assert (status, etag, body) == (304, seen.etag, ""), what
        seen = now


def test_a_304_needs_the_same_access_as_the_fragment(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    """An ETag learnt elsewhere opens nothing: someone else, or another workspace's address, gets the 404."""
    owner, other = make_account("candidate"), make_account("candidate")
    version = get_published(session=db, slug="leaky-mask")
    attempt = Attempt(user_id=owner.user.id, scenario_version_id=version.id, kind="run", status="running",
                      files={}, progress={"stage": "sandbox"})
    db.add(attempt)
    db.commit()
    url = f"{PAGE}/attempts/{attempt.id}/panel"
    etag = full_panel(signed_in(web_app, owner), url).etag
    stranger = signed_in(web_app, other)
    assert stranger.get(url, headers={**HTMX, "If-None-Match": etag}).status_code == 404
    assert stranger.get(url, headers={**HTMX, "If-None-Match": "*"}).status_code == 404
    owner_client = signed_in(web_app, owner)
    assert owner_client.get(f"{url}?interview=1", headers={"If-None-Match": "*"}).status_code == 404
    other_slug = f"/challenges/{_another_slug(db)}/attempts/{attempt.id}/panel"
    assert owner_client.get(other_slug, headers={**HTMX, "If-None-Match": "*"}).status_code == 404


def _another_slug(db: Session) -> str:
    from sqlalchemy import select

    from app.scenarios.models import Scenario

    return db.scalars(select(Scenario.slug).where(Scenario.slug != "leaky-mask", Scenario.archived.is_(False))).first()
