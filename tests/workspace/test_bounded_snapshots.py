"""Bounded storage per user: refused requests write nothing, snapshots only on change and once per window,
and a per-user cap on snapshot rows and bytes that thins the oldest first (first and last of a draft kept).

The probe that found the growth: twenty Run posts with kind=nope carrying two 60 KB files and four 19 KB
notes, identical posts, posts refused with 429 and ten restore clicks added megabytes to draft_snapshots.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker
from web.support import PASSWORD, Account, unique_email

from app.attempts.models import Attempt
from app.core import db as core_db
from app.core.db import utcnow
from app.core.migrate import upgrade_to_head
from app.core.settings import get_settings
from app.engine.package import ScenarioPackage
from app.main import create_app
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import slug_of, sync_builtin_scenarios
from app.users.service import create_user
from app.workspace import snapshots
from app.workspace.models import Draft, DraftSnapshot

from .helpers import HTMX, page_csrf, signed_in

ROW_CAP = 6
BYTE_CAP = 400_000  # a little over three snapshots of the probe's text (two 60 KB files, four 19 KB notes)


@pytest.fixture
def low_caps(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFT_SNAPSHOTS_PER_USER", str(ROW_CAP))
    monkeypatch.setenv("DRAFT_SNAPSHOT_BYTES_PER_USER", str(BYTE_CAP))
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


def _usage(db: Session, account: Account) -> snapshots.SnapshotUsage:
    db.expire_all()
    return snapshots.usage(session=db, user_id=account.user.id)


def _snapshots(db: Session, account: Account) -> list[DraftSnapshot]:
    db.expire_all()
    return list(db.scalars(select(DraftSnapshot).join(Draft, Draft.id == DraftSnapshot.draft_id)
                           .where(Draft.user_id == account.user.id)
                           .order_by(DraftSnapshot.taken_at, DraftSnapshot.id)))


def _age_snapshots(db: Session, account: Account, by: timedelta = timedelta(minutes=1)) -> None:
    """Move every snapshot of the account back in time: the next change opens a new window."""
    for snapshot in _snapshots(db, account):
        db.execute(update(DraftSnapshot).where(DraftSnapshot.id == snapshot.id).values(taken_at=snapshot.taken_at - by))
    db.commit()


@dataclass(frozen=True)
class Setup:
    """The app reading through its real per-request sessions (committed or rolled back as in production)."""

    app: FastAPI
    db: Session  # the test's own session on the same database
    me: Account
    page: str  # the workspace of a published built-in
    package: ScenarioPackage


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Setup]:
    # Not the shared rolled-back session: there a rollback also undid the endpoint's earlier commit,
    # which hid the snapshots a refused Run had already committed.
    engine = core_db.make_engine(f"sqlite:///{tmp_path / 'snapshots.sqlite3'}")
    upgrade_to_head(engine)
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    monkeypatch.setattr(core_db, "_session_factory", lambda: factory)
    with factory() as db:
        email = unique_email("candidate")
        user = create_user(session=db, email=email, password=PASSWORD, role="candidate")
        version = sync_builtin_scenarios(session=db)[0]
        db.commit()
        yield Setup(app=create_app(), db=db, me=Account(user=user, email=email, password=PASSWORD),
                    page=f"/challenges/{slug_of(session=db, version=version)}",
                    package=ScenarioPackage.from_dict(version.content))
    engine.dispose()


def _probe_form(token: str, package: ScenarioPackage, n: int, kind: str = "nope") -> dict[str, str]:
    """Two 60 KB files and four 19 KB notes, different on every post."""
    files = {f"file:{name}": f"# post {n}\n" + "x" * 60_000 for name in package.files[:2]}
    notes = {f"note:{q['id']}": f"note {n} " + "y" * 19_000 for q in package.questions[:4]}
    return {"csrf_token": token, "kind": kind, **files, **notes}


def test_the_probe_grows_the_snapshots_by_at_most_the_cap(setup: Setup, low_caps: None) -> None:
    db, me, page, package = setup.db, setup.me, setup.page, setup.package
    client = signed_in(setup.app, me)
    _, token = page_csrf(client, page)
    assert len(package.questions) >= 4 and len(package.files) >= 2
    before = _usage(db, me)

    for n in range(20):  # an unknown kind: refused before anything is written
        bad = client.post(f"{page}/attempts", data=_probe_form(token, package, n), follow_redirects=False)
        assert bad.status_code == 422 and "Unknown kind" in bad.text
    assert _usage(db, me) == before

    for _ in range(10):  # the same text again and again: one snapshot at most
        same = client.post(f"{page}/draft/form", data=_probe_form(token, package, 100), follow_redirects=False)
        assert same.status_code == 303
    assert _usage(db, me).rows - before.rows == 1

    accepted = client.post(f"{page}/attempts", data=_probe_form(token, package, 200, kind="run"), headers=HTMX)
    assert accepted.status_code == 200 and "HX-Retarget" not in accepted.headers
    after_run = _usage(db, me)
    for n in range(10):  # a run is still in flight: 429, nothing written
        busy = client.post(f"{page}/attempts", data=_probe_form(token, package, 300 + n, kind="run"),
                           follow_redirects=False)
        assert busy.status_code == 429 and f"# post {300 + n}" in busy.text  # the page keeps the posted text
    assert _usage(db, me) == after_run

    attempt_id = _newest_attempt_id(db, me)
    for _ in range(10):  # restore clicks: the same window, one row at most
        restored = client.post(f"{page}/attempts/{attempt_id}/restore", data={"csrf_token": token},
                               follow_redirects=False)
        assert restored.status_code == 303
    grown = _usage(db, me)
    assert grown.rows - after_run.rows <= 1
    assert grown.rows <= ROW_CAP and grown.size_bytes <= BYTE_CAP


def _newest_attempt_id(db: Session, account: Account) -> int:
    db.expire_all()
    found = db.scalar(select(Attempt.id).where(Attempt.user_id == account.user.id).order_by(Attempt.id.desc()))
    assert found is not None
    return found


def test_a_change_within_the_window_updates_the_newest_snapshot_and_a_later_one_adds_a_row(setup: Setup) -> None:
    db, me, page = setup.db, setup.me, setup.page
    client = signed_in(setup.app, me)
    _, token = page_csrf(client, page)
    headers = {"X-CSRF-Token": token}

    def autosave(text: str) -> None:
        response = client.post(f"{page}/draft", json={"files": {"model.py": text}}, headers=headers)
        assert response.status_code == 200 and response.json()["saved"] is True

    autosave("# one")
    autosave("# two")  # within the window: the same row, now holding the newest text
    rows = _snapshots(db, me)
    assert len(rows) == 1 and rows[0].files["model.py"] == "# two"
    assert rows[0].size_bytes == snapshots.text_bytes(rows[0].files, rows[0].notes)
    autosave("# two")  # unchanged text: nothing at all
    assert [(r.id, r.revision) for r in _snapshots(db, me)] == [(rows[0].id, rows[0].revision)]
    _age_snapshots(db, me)
    autosave("# three")
    rows = _snapshots(db, me)
    assert [r.files["model.py"] for r in rows] == ["# two", "# three"]


def test_past_the_cap_the_oldest_are_thinned_and_each_drafts_first_and_last_stay(
    setup: Setup, low_caps: None,
) -> None:
    db, me, page = setup.db, setup.me, setup.page
    client = signed_in(setup.app, me)
    _, token = page_csrf(client, page)
    headers = {"X-CSRF-Token": token}
    for n in range(1, 25):
        _age_snapshots(db, me)  # every save opens a new window
        response = client.post(f"{page}/draft", json={"files": {"model.py": f"# edit {n}"}}, headers=headers)
        assert response.status_code == 200
        assert _usage(db, me).rows <= ROW_CAP
    kept = [int(r.files["model.py"].removeprefix("# edit ")) for r in _snapshots(db, me)]
    assert kept[0] == 1 and kept[-1] == 24  # where the draft began and where it ended
    assert kept == sorted(kept) and len(kept) >= ROW_CAP * 3 // 4 - 1
    gaps = [b - a for a, b in zip(kept, kept[1:], strict=False)]
    assert gaps[0] > gaps[-1], f"the oldest stretch is thinned most: {kept}"


def test_the_byte_cap_thins_too(db: Session, make_account: Callable[..., Account],
                                published_version: ScenarioVersion, low_caps: None) -> None:
    me = make_account("candidate")
    draft = Draft(user_id=me.user.id, scenario_version_id=published_version.id, scope="practice",
                  files={}, notes={}, revision=0)
    db.add(draft)
    db.flush()
    big = "z" * 150_000
    start = utcnow() - timedelta(hours=1)
    for n in range(1, 6):  # a new window each time, each snapshot about 150 KB
        draft.files, draft.revision = {"model.py": f"{n}{big}"}, n
        db.flush()
        snapshots.record(session=db, draft=draft)
        db.execute(update(DraftSnapshot).where(DraftSnapshot.draft_id == draft.id, DraftSnapshot.revision == n)
                   .values(taken_at=start + timedelta(minutes=n)))
    used = _usage(db, me)
    assert used.size_bytes <= BYTE_CAP and used.rows < ROW_CAP
    revisions = [r.revision for r in _snapshots(db, me)]
    assert revisions[0] == 1 and revisions[-1] == 5
