"""JSON API for scenarios: the published catalogue and one scenario's starter material."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException

from app.attempts.package_info import public_package
from app.auth.deps import CurrentUser, SessionDep
from app.scenarios import service
from app.scenarios.schemas import ScenarioCard, ScenarioDetail, ScenarioQuestion

router = APIRouter(prefix="/api/scenarios", tags=["scenarios"])


@router.get("")
def list_scenarios(_user: CurrentUser, session: SessionDep) -> list[ScenarioCard]:
    """Published scenarios, easiest first."""
    return [
        ScenarioCard(slug=slug, title=version.title, difficulty=version.difficulty, version=version.version,
                     components=public_package(version).components)
        for version, slug in service.list_published(session=session)
    ]


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
