"""Invites and reminders by email, read back from a real local SMTP server (aiosmtpd)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from email import message_from_bytes
from email.message import Message

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from web.live_server import free_port
from web.support import Account, csrf_from, sign_in, unique_email

from app.core.db import utcnow
from app.core.settings import get_settings
from app.interviews import invites, service
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import slug_of
from interviews.conftest import ApiUser


class Inbox:
    """An aiosmtpd handler that keeps every message it receives."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:  # noqa: N802
        self.messages.append(message_from_bytes(envelope.content))  # type: ignore[attr-defined]
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[Message]:
        return [m for m in self.messages if m["To"] == address]


@pytest.fixture
def inbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[Inbox]:
    from aiosmtpd.controller import Controller

    handler = Inbox()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setenv("SMTP_URL", f"smtp://127.0.0.1:{port}")
    monkeypatch.setenv("SMTP_FROM", "Dojo <dojo@example.com>")
    get_settings.cache_clear()
    try:
        yield handler
    finally:
        controller.stop()
        monkeypatch.delenv("SMTP_URL")
        get_settings.cache_clear()


def _body(message: Message) -> str:
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def test_api_invite_is_emailed_with_a_working_link(
    inbox: Inbox, web_client: TestClient, db: Session, api_user: Callable[[str], ApiUser],
    published_version: ScenarioVersion,
) -> None:
    email = unique_email("mailed")
    created = web_client.post("/api/interviews", headers=api_user("interviewer").headers, json={
        "candidate_email": email, "scenario": slug_of(session=db, version=published_version), "time_limit_minutes": 40})
    assert created.status_code == 201 and created.json()["emailed"] is True
    [message] = inbox.to(email)
    assert message["From"] == "Dojo <dojo@example.com>" and "invitation" in message["Subject"]
    body = _body(message)
    assert created.json()["invite_url"] in body and "40-minute" in body
    link = created.json()["invite_url"].replace("http://testserver", "")
    assert web_client.get(link).status_code == 200


def test_page_resend_emails_a_new_link_and_voids_the_old(
    inbox: Inbox, web_app: FastAPI, db: Session, make_account: Callable[..., Account],
    published_version: ScenarioVersion,
) -> None:
    owner = make_account("interviewer")
    client = TestClient(web_app)
    sign_in(client, owner.email)
    email = unique_email("resend")
    created = client.post("/interviewer/interviews", data={
        "csrf_token": csrf_from(client.get("/interviewer").text), "candidate_email": email,
        "scenario_version_id": str(published_version.id), "time_limit_minutes": "30", "valid_days": "3"})
    assert created.status_code == 201 and "the invite was emailed" in created.text
    assert 'id="invite-url"' not in created.text  # emailed: nothing to copy
    interview = db.query(Interview).filter(Interview.candidate_email == email).one()
    first_link = _body(inbox.to(email)[0]).split("/invite/", 1)[1].split()[0]
    url = f"/interviewer/interviews/{interview.id}"
    resent = client.post(f"{url}/invite", data={"csrf_token": csrf_from(client.get(url).text)})
    assert resent.status_code == 200 and "A new invite was emailed" in resent.text
    assert len(inbox.to(email)) == 2
    second_link = _body(inbox.to(email)[1]).split("/invite/", 1)[1].split()[0]
    assert second_link != first_link
    assert client.get(f"/invite/{first_link}").status_code == 404
    assert client.get(f"/invite/{second_link}").status_code == 200


def test_reminder_goes_once_before_expiry_and_not_for_used_or_revoked_invites(
    inbox: Inbox, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
) -> None:
    interviewer = make_account("interviewer").user

    def emailed(email: str, hours_left: float) -> Interview:
        interview, _token = service.create_interview(
            session=db, interviewer=interviewer, candidate_email=email, scenario_version=published_version,
            time_limit_minutes=30, expires_in=timedelta(days=2))
        interview.invite_sent_at = utcnow()
        interview.invite_expires_at = utcnow() + timedelta(hours=hours_left)
        db.commit()
        return interview

    due, later, used, revoked = (unique_email(n) for n in ("due", "later", "used", "revoked"))
    emailed(due, 5)
    emailed(later, 40)
    emailed(used, 5).invite_used_at = utcnow()
    invites.revoke(session=db, interview=emailed(revoked, 5))
    db.commit()
    assert invites.send_due_reminders(session=db) >= 1
    assert invites.send_due_reminders(session=db) == 0  # once only
    [reminder] = inbox.to(due)
    assert reminder["Subject"].startswith("Reminder") and "expires at" in _body(reminder)
    assert not inbox.to(later) and not inbox.to(used) and not inbox.to(revoked)


def test_unreachable_smtp_server_still_shows_the_link(
    monkeypatch: pytest.MonkeyPatch, web_client: TestClient, db: Session, api_user: Callable[[str], ApiUser],
    published_version: ScenarioVersion,
) -> None:
    monkeypatch.setenv("SMTP_URL", f"smtp://127.0.0.1:{free_port()}")  # nothing listens there
    get_settings.cache_clear()
    try:
        created = web_client.post("/api/interviews", headers=api_user("interviewer").headers, json={
            "candidate_email": unique_email("nomail"), "scenario": slug_of(session=db, version=published_version)})
    finally:
        monkeypatch.delenv("SMTP_URL")
        get_settings.cache_clear()
    assert created.status_code == 201
    assert created.json()["emailed"] is False and "could not be sent" in created.json()["email_error"]
    assert "/invite/" in created.json()["invite_url"]


def test_reminder_loop_runs_a_sweep_in_its_own_session(
    inbox: Inbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.interviews import reminders

    calls: list[int] = []
    monkeypatch.setattr(invites, "send_due_reminders", lambda *, session: calls.append(1) or 0)
    assert reminders.run_once() == 0 and calls == [1]
    monkeypatch.setattr(invites, "send_due_reminders", lambda *, session: 1 / 0)
    assert reminders.run_once() == 0  # a failing sweep is logged, the loop goes on
