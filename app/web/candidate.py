"""The candidate dashboard: published challenges (filtered by interface with ?interface=) and the
candidate's own attempts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.attempts.models import Attempt
from app.auth.deps import CurrentUser, SessionDep
from app.core.db import run_read
from app.engine.interfaces import INTERFACES
from app.http.templating import render
from app.scenarios import service as scenarios_service
from app.scenarios.models import ScenarioVersion
from app.users.models import User

router = APIRouter(tags=["pages"], include_in_schema=False)

RECENT_ATTEMPTS = 50


# Built once (with the user as a bound parameter): building a statement costs more than running it.
# Only the columns the table shows: an attempt's files and result are tens of kilobytes each.
_RECENT = (
    select(Attempt.id, Attempt.kind, Attempt.status, Attempt.created_at, ScenarioVersion.title,
           ScenarioVersion.version)
    .join(ScenarioVersion, ScenarioVersion.id == Attempt.scenario_version_id)
    .where(Attempt.user_id == bindparam("user_id"))
    .order_by(Attempt.created_at.desc(), Attempt.id.desc())
    .limit(RECENT_ATTEMPTS)
)


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
    attempts = session.execute(_RECENT, {"user_id": user.id}).all()
    return render(request, "candidate.html", {
        "challenges": challenges, "attempts": attempts, "filters": interface_filters(cards, chosen),
        "chosen_interface": INTERFACES[chosen] if chosen else None, "unknown_interface": unknown})
