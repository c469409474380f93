"""`dojo scenarios import` and `dojo scenarios export`: packages in and out of the database."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from sqlalchemy import select

from app.engine.errors import PackageError
from app.engine.package import ScenarioPackage, load_package
from app.scenarios import authoring, reference
from app.scenarios.export import package_zip
from app.scenarios.models import Scenario, ScenarioVersion


def import_command(path: str, *, publish: bool, without_per_bug_credit: bool = False,
                   out: TextIO | None = None) -> int:
    """Store a package directory or zip as a draft; with publish, validate it here and publish it if valid."""
    from app.core.db import get_engine, new_session
    from app.core.migrate import upgrade_to_head

    out = out or sys.stdout
    try:
        package = load_package(path)
    except PackageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    upgrade_to_head(get_engine())
    with new_session() as session:
        version = authoring.save_package(session=session, package=package, user=None)
        session.commit()
        number, version_id = version.version, version.id
    print(f"Imported {package.slug} as draft version {number}", file=out)
    if not publish:
        return 0
    return _validate_and_publish(package, version_id, out, without_per_bug_credit)


def _validate_and_publish(package: ScenarioPackage, version_id: int, out: TextIO,
                          without_per_bug_credit: bool) -> int:
    from app.core.db import new_session
    from app.engine.validator import validate_package
    from app.sandbox import get_runner

    print(f"Validating {package.slug} ({len(package.bugs)} bugs)...", file=out)
    report = validate_package(package=package, runner=get_runner())
    with new_session() as session:
        reference.store_report(session=session, version_id=version_id, report=report)
        session.commit()
        version = session.get(ScenarioVersion, version_id)
        assert version is not None
        try:
            authoring.publish(session=session, slug=package.slug, version=version, user=None,
                              without_per_bug_credit=without_per_bug_credit)
        except authoring.AuthoringError as exc:
            session.rollback()
            sys.stderr.write(f"error: {exc.detail}\n")
            return 1
        session.commit()
    print(f"Published {package.slug} version {version.version}", file=out)
    return 0


def export_command(slug: str, *, number: int | None, target: str, out: TextIO | None = None) -> int:
    """Write a version's package (default: the newest) as a zip."""
    from app.core.db import new_session

    out = out or sys.stdout
    with new_session() as session:
        scenario = session.scalar(select(Scenario).where(Scenario.slug == slug))
        query = select(ScenarioVersion).where(ScenarioVersion.scenario_id == (scenario.id if scenario else -1))
        if number is not None:
            query = query.where(ScenarioVersion.version == number)
        version = session.scalar(query.order_by(ScenarioVersion.version.desc()).limit(1))
        if version is None:
            which = f" version {number}" if number is not None else ""
            sys.stderr.write(f"error: no scenario {slug!r}{which} in the database\n")
            return 2
        data = package_zip(ScenarioPackage.from_dict(version.content))
        number = version.version
    Path(target).write_bytes(data)
    print(f"Wrote {slug} version {number} to {target} ({len(data)} bytes)", file=out)
    return 0
