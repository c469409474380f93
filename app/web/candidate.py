"""The candidate dashboard: published challenges (filtered by interface with ?interface=) and the
candidate's own attempts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.attempts import numbers
from app.attempts.models import Attempt
from app.auth.deps import CurrentUser, SessionDep
from app.core.db import run_read
from app.engine.interfaces import INTERFACES
from app.http.templating import render
from app.scenarios import service as scenarios_service
from app.scenarios.models import ScenarioVersion
from app.users.models import User
from app.workspace import history

router = APIRouter(tags=["pages"], include_in_schema=False)

RECENT_ATTEMPTS = 50


# Built once (with the user as a bound parameter): building a statement costs more than running it.
# Only the columns the table shows: an attempt's files and result are tens of kilobytes each. Each attempt
# is numbered in its workspace (a challenge version's practice, or one interview) over all of the user's
# attempts, as app/attempts/numbers.py numbers them, before the newest are taken.
_NUMBERED = select(
    Attempt.id, Attempt.kind, Attempt.status, Attempt.created_at, Attempt.scenario_version_id, Attempt.interview_id,
    func.row_number().over(partition_by=(Attempt.scenario_version_id, Attempt.interview_id),
                           order_by=Attempt.id).label("number"),
).where(Attempt.user_id == bindparam("user_id")).subquery()
_RECENT = (
    select(_NUMBERED, ScenarioVersion.title, ScenarioVersion.version)
    .join(ScenarioVersion, ScenarioVersion.id == _NUMBERED.c.scenario_version_id)
    .order_by(_NUMBERED.c.created_at.desc(), _NUMBERED.c.id.desc())
    .limit(RECENT_ATTEMPTS)
)


@dataclass(frozen=True)
class RecentAttempt:
    """A line of the dashboard's attempts: named and judged as the workspace's History shows it."""

    name: str  # "Run 3": its number in its workspace
    in_interview: bool
    title: str
    version: int
    kind: str
    status: str  # a Run's is its public checks'
    created_at: datetime


def recent_attempts(session: Session, user_id: int) -> list[RecentAttempt]:
    rows = session.execute(_RECENT, {"user_id": user_id}).all()
    # A failed Run may have failed only its hidden checks: read those results back (only those).
    failed_runs = [r.id for r in rows if r.kind == "run" and r.status == "failed"]
    statuses = history.shown_statuses(list(session.scalars(select(Attempt).where(Attempt.id.in_(failed_runs))))) \
        if failed_runs else {}
    return [RecentAttempt(name=numbers.attempt_name(r.kind, r.number), in_interview=r.interview_id is not None,
                          title=r.title, version=r.version, kind=r.kind, status=statuses.get(r.id, r.status),
                          created_at=r.created_at) for r in rows]


@dataclass(frozen=True)
class InterfaceFilter:
    """One link of the catalogue's interface filter: an interface (None: every one) and its challenges."""

    name: str | None
    label: str
    description: str
    count: int
    current: bool


def interface_filters(cards: Sequence[scenarios_service.PublishedCard], chosen: str | None) -> list[InterfaceFilter]:
    """"All" and then every registered interface, each with how many published challenges it has."""
    counts = Counter(card.interface for card in cards)
    return [InterfaceFilter(None, "All interfaces", "", len(cards), chosen is None),
            *(InterfaceFilter(name, interface.label, interface.description, counts[name], chosen == name)
              for name, interface in INTERFACES.items())]


@router.get("/candidate", name="candidate_dashboard")
async def candidate_dashboard(request: Request, user: CurrentUser, session: SessionDep,
                              interface: Annotated[str | None, Query()] = None) -> Response:
    """Challenges to practise and the signed-in user's attempts (every role may practise)."""
    return await run_read(session, _dashboard, request, user, session, interface)


def _dashboard(request: Request, user: User, session: Session, interface: str | None) -> Response:
    cards = scenarios_service.published_cards(session=session)
    # An unknown interface (a stale or hand-edited link) filters nothing; the page says so.
    unknown = interface[:80] if interface and interface not in INTERFACES else None
    chosen = interface if interface in INTERFACES else None
    challenges = [card for card in cards if chosen is None or card.interface == chosen]
    attempts = recent_attempts(session, user.id)
    return render(request, "candidate.html", {
        "challenges": challenges, "attempts": attempts, "filters": interface_filters(cards, chosen),
        "chosen_interface": INTERFACES[chosen] if chosen else None, "unknown_interface": unknown})
