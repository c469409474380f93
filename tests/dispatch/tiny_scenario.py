"""A cheap real scenario for load and fault tests: warm-up's code with the smallest training run.

Real gradings of it still run the whole pipeline (sandbox, probes, checks) in a few seconds.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.engine.builtin import find_builtin
from app.engine.package import ScenarioPackage
from app.scenarios.models import Scenario, ScenarioVersion

SLUG = "tiny-burst"
TINY_TRAINING = {"steps": 80, "batch_size": 8, "block_size": 16, "n_layer": 1, "n_head": 2, "n_embd": 32}


def tiny_package() -> ScenarioPackage:
    data = find_builtin("warm-up").to_dict()
    data["slug"] = SLUG
    data["title"] = "Tiny burst (tests only)"
    data["training"].update(TINY_TRAINING)
    return ScenarioPackage.from_dict(data)


def publish_tiny(*, session: Session) -> ScenarioVersion:
    """Add the tiny scenario as a published version (idempotent)."""
    package = tiny_package()
    scenario = session.scalar(select(Scenario).where(Scenario.slug == SLUG))
    if scenario is None:
        scenario = Scenario(slug=SLUG, title=package.title)
        session.add(scenario)
        session.flush()
    version = session.scalar(select(ScenarioVersion).where(ScenarioVersion.scenario_id == scenario.id))
    if version is None:
        version = ScenarioVersion(
            scenario_id=scenario.id, version=1, title=package.title, difficulty="easy", summary="",
            content=package.to_dict(), content_hash=package.content_hash, status="published",
            published_at=utcnow(),
        )
        session.add(version)
        session.flush()
    return version


def warm_reference() -> None:
    """Compute the tiny scenario's reference measurements once, into the run's reference cache
    (REFERENCE_CACHE_DIR, which every process a test starts inherits)."""
    from app.grading.reference import ensure_reference
    from app.sandbox import get_runner

    ensure_reference(package=tiny_package(), runner=get_runner())
