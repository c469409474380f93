"""Recording and reading the audit log."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.audit.models import AuditEvent
from app.users.models import User

# Every action the log knows, with the words the admin page shows.
ACTIONS = {
    "scenario.created": "created scenario",
    "scenario.imported": "imported scenario",
    "scenario.archived": "archived scenario",
    "scenario.unarchived": "restored scenario",
    "version.created": "started draft",
    "version.edited": "edited draft",
    "version.bug_added": "planted bug in",
    "version.validation_started": "started validation of",
    "version.published": "published",
    "version.retired": "retired",
    "version.rejudge_started": "started rejudge of",
    "user.created": "created user",
    "user.role_changed": "changed role of",
    "user.activated": "activated",
    "user.deactivated": "deactivated",
    "user.signed_up": "signed up",
    "site.sign_up_opened": "opened self sign-up",
    "site.sign_up_closed": "closed self sign-up",
}


def record(*, session: Session, actor: User | None, action: str, target: str, **details: Any) -> AuditEvent:
    """Add one event to the caller's transaction (it is kept only if the action commits)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown audit action {action!r}")
    event = AuditEvent(actor_id=actor.id if actor else None, actor_email=actor.email if actor else "system",
                       action=action, target=target[:200], details=details)
    session.add(event)
    return event


def recent(*, session: Session, limit: int = 200, prefix: str = "") -> list[AuditEvent]:
    """The newest events first, optionally only actions starting with `prefix` (scenario., version., user.)."""
    query = select(AuditEvent).order_by(AuditEvent.created_at.desc(), AuditEvent.id.desc()).limit(limit)
    if prefix:
        query = query.where(AuditEvent.action.startswith(prefix))
    return list(session.scalars(query).all())


def describe(event: AuditEvent) -> str:
    """"admin@x published leaky-fork v2" for the page."""
    return f"{event.actor_email} {ACTIONS.get(event.action, event.action)} {event.target}"
