"""JSON API for scenarios: the published catalogue and one scenario's starter material."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from app.attempts.package_info import package_of, public_package
from app.auth.deps import CurrentUser, SessionDep
from app.engine.interfaces import INTERFACES
from app.scenarios import service
from app.scenarios.schemas import ScenarioCard, ScenarioDetail, ScenarioQuestion

router = APIRouter(prefix="/api/scenarios", tags=["scenarios"])


@router.get("")
def list_scenarios(_user: CurrentUser, session: SessionDep,
                   interface: Annotated[str | None, Query(max_length=40)] = None) -> list[ScenarioCard]:
    """Published scenarios, easiest first; `?interface=llama-v1` keeps one interface's."""
    if interface is not None and interface not in INTERFACES:
        raise HTTPException(422, f"Unknown interface {interface!r}; the interfaces are {', '.join(INTERFACES)}.")
    cards = [
        ScenarioCard(slug=slug, title=version.title, difficulty=version.difficulty, version=version.version,
                     components=public_package(version).components, interface=package_of(version).interface)
        for version, slug in service.list_published(session=session)
    ]
    return [card for card in cards if interface is None or card.interface == interface]


@router.get("/{slug}")
def read_scenario(slug: str, _user: CurrentUser, session: SessionDep) -> ScenarioDetail:
    """Brief, starter files and reflection questions; never the solution or hidden material."""
    version = service.get_published(session=session, slug=slug)
    if version is None:
        raise HTTPException(404, f"Unknown scenario {slug[:80]!r}.")
    package = public_package(version)
    return ScenarioDetail(slug=slug, title=version.title, difficulty=version.difficulty, version=version.version,
                          brief=package.brief, files=package.starter_files,
                          questions=[ScenarioQuestion(id=q["id"], text=q["text"]) for q in package.questions])
