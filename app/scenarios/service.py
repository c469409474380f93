"""Scenario versions in the database: loading the built-ins, finding what candidates may open."""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple, TypeVar

from sqlalchemy import ColumnElement, Select, Subquery, func, select
from sqlalchemy.orm import Session, defer

from app.core.db import utcnow
from app.engine.interfaces import DEFAULT_INTERFACE, interface_label
from app.scenarios.models import Scenario, ScenarioVersion

PUBLISHED = "published"
RETIRED = "retired"


def sync_builtin_scenarios(*, session: Session) -> list[ScenarioVersion]:
    """Make each built-in package the newest published version of its scenario (idempotent).

    A package whose content changed gets a new version number; the old version is retired but
    kept, because stored attempts point at it. Built-ins are validated in CI, so they publish; their
    validation report and reference measurements are computed in the background after loading.
    """
    from app.engine.builtin import builtin_packages

    synced = []
    for package in builtin_packages():
        scenario = session.scalar(select(Scenario).where(Scenario.slug == package.slug))
        if scenario is None:
            scenario = Scenario(slug=package.slug, title=package.title, is_builtin=True)
            session.add(scenario)
            session.flush()
        latest = latest_version(session=session, scenario_id=scenario.id)
        # An admin's open draft of a built-in is not what ships; compare with the newest frozen version.
        shipped = session.scalar(
            select(ScenarioVersion).where(ScenarioVersion.scenario_id == scenario.id,
                                          ScenarioVersion.status != "draft")
            .order_by(ScenarioVersion.version.desc()).limit(1)
        )
        if shipped is not None and shipped.content_hash == package.content_hash:
            synced.append(shipped)
            continue
        if shipped is not None and shipped.status == PUBLISHED:
            shipped.status = RETIRED
        scenario.title = package.title
        version = ScenarioVersion(
            scenario_id=scenario.id,
            version=(latest.version + 1) if latest is not None else 1,
            title=package.title,
            difficulty=package.difficulty,
            summary=package.summary,
            content=package.to_dict(),
            content_hash=package.content_hash,
            status=PUBLISHED,
            published_at=utcnow(),
        )
        session.add(version)
        session.flush()
        synced.append(version)
    return synced


def latest_version(*, session: Session, scenario_id: int) -> ScenarioVersion | None:
    """The highest-numbered version of a scenario, whatever its status."""
    return session.scalar(
        select(ScenarioVersion)
        .where(ScenarioVersion.scenario_id == scenario_id)
        .order_by(ScenarioVersion.version.desc())
        .limit(1)
    )


class PublishedCard(NamedTuple):
    """What a dashboard shows of a published challenge."""

    id: int  # the version's
    slug: str
    title: str
    difficulty: str
    version: int
    summary: str
    interface: str  # the package's challenge interface, e.g. "llama-v1"

    @property
    def interface_label(self) -> str:
        return interface_label(self.interface)


_Statement = TypeVar("_Statement", bound="Select[*tuple[Any, ...]]")
_DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}


def _easiest_first(title: str, difficulty: str) -> tuple[int, str]:
    return _DIFFICULTY_ORDER.get(difficulty, 3), title


@cache
def _newest_published_versions() -> Subquery:
    """Each scenario's highest published version number (a subquery, built once)."""
    return (
        select(ScenarioVersion.scenario_id, func.max(ScenarioVersion.version).label("version"))
        .where(ScenarioVersion.status == PUBLISHED)
        .group_by(ScenarioVersion.scenario_id)
        .subquery()
    )


def _newest_published(statement: _Statement) -> _Statement:
    """The statement limited to every unarchived scenario's newest published version."""
    newest = _newest_published_versions()
    return (
        statement.join(newest, (ScenarioVersion.scenario_id == newest.c.scenario_id)
                       & (ScenarioVersion.version == newest.c.version))
        .join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
        .where(Scenario.archived.is_(False))
    )  # fmt: skip


# Built once (constructing them costs more than running them): the versions as objects with their
# package (the large reference and validation are not loaded), and as the columns of a PublishedCard.
@cache
def _published_versions() -> Select[ScenarioVersion, str]:
    return _newest_published(select(ScenarioVersion, Scenario.slug)).options(
        defer(ScenarioVersion.reference), defer(ScenarioVersion.validation)
    )


def _interface_column() -> ColumnElement[str]:
    """The interface a version's package names (read inside the JSON content, no package parsed)."""
    return func.coalesce(ScenarioVersion.content["interface"].as_string(), DEFAULT_INTERFACE)


@cache
def _published_cards() -> Select[int, str, str, str, int, str, str]:
    return _newest_published(select(ScenarioVersion.id, Scenario.slug, ScenarioVersion.title,
                                     ScenarioVersion.difficulty, ScenarioVersion.version, ScenarioVersion.summary,
                                     _interface_column()))


def list_published(*, session: Session) -> list[tuple[ScenarioVersion, str]]:
    """The newest published version of every scenario that is not archived, with its slug, easiest first."""
    rows = [(version, slug) for version, slug in session.execute(_published_versions())]
    return sorted(rows, key=lambda row: _easiest_first(row[0].title, row[0].difficulty))


def published_cards(*, session: Session) -> list[PublishedCard]:
    """list_published as dashboards show it: a few columns, no objects (a dashboard renders on every visit)."""
    cards = [PublishedCard(*row) for row in session.execute(_published_cards())]
    return sorted(cards, key=lambda card: _easiest_first(card.title, card.difficulty))


def get_published(*, session: Session, slug: str) -> ScenarioVersion | None:
    """The version a new attempt on `slug` should use, or None for an unknown or hidden slug."""
    return session.scalar(
        select(ScenarioVersion)
        .join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
        .where(Scenario.slug == slug, Scenario.archived.is_(False), ScenarioVersion.status == PUBLISHED)
        .order_by(ScenarioVersion.version.desc())
        .limit(1)
    )


def slug_of(*, session: Session, version: ScenarioVersion) -> str:
    """The slug of the scenario a version belongs to."""
    return session.scalars(select(Scenario.slug).where(Scenario.id == version.scenario_id)).one()
