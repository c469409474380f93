"""A scenario version's validation report and reference measurements, kept in its database row.

Every worker on every machine grades against the same stored reference, so no grading waits for a
warm-up and no two workers compute it twice. A report made by another engine version (the harness
or checks changed) is recomputed once and written back.
"""

from __future__ import annotations

import logging

from sqlalchemy import update
from sqlalchemy.orm import Session

from app.engine.interfaces import engine_fingerprint, is_current_engine
from app.engine.package import ScenarioPackage
from app.engine.validator import ValidationReport
from app.sandbox.job import Runner
from app.scenarios.models import ScenarioVersion

log = logging.getLogger(__name__)


def current_report(stored: object, package: ScenarioPackage) -> ValidationReport | None:
    """The stored report (the version row's `reference` JSON) when it belongs to this package and to
    the running engine, else None."""
    if not stored or not isinstance(stored, dict):
        return None
    try:
        report = ValidationReport.from_dict(stored)
    except (KeyError, TypeError, ValueError):
        log.warning("scenario %s: unreadable stored reference; it will be recomputed", package.slug)
        return None
    if report.content_hash != package.content_hash or report.engine != engine_fingerprint(package.interface):
        return None
    if report.reference is None:
        return None
    return report


def stored_validation(version: ScenarioVersion) -> ValidationReport | None:
    """The version's last validation report (its `validation` column, without measurements), or None
    when it has none or the stored one no longer reads."""
    stored = version.validation
    if not stored or "valid" not in stored:
        return None
    try:
        return ValidationReport.from_dict(stored)
    except (KeyError, TypeError, ValueError):
        log.warning("scenario version %s: unreadable stored validation report", version.id)
        return None


def has_reference(stored: object, content_hash: str) -> bool:
    """Whether a stored report (the row's `reference` JSON) carries reference measurements of this
    content for the running engine (the matrix may still be missing): gradings of the version can start.

    Read from the report's stamp, without loading its measurements."""
    if not isinstance(stored, dict):
        return False
    return stored.get("content_hash") == content_hash and is_current_engine(stored.get("engine")) \
        and stored.get("reference") is not None


def stored_report_is_complete(stored: object, content_hash: str) -> bool:
    """Whether the stored report is current and has the bug x test matrix (not only the reference)."""
    return isinstance(stored, dict) and has_reference(stored, content_hash) and stored.get("complete", True) is True


def store_report(*, session: Session, version_id: int, report: ValidationReport) -> None:
    """Write the report into the version row (flushed by the caller's commit).

    The reference column gets the measurements only when the solution ran; a report without them
    still records what went wrong in `validation`.
    """
    # The `validation` column keeps the whole report but the (large) measurements.
    reference = ScenarioVersion.reference if report.reference is None else report.to_dict()
    session.execute(
        update(ScenarioVersion).where(ScenarioVersion.id == version_id)
        .values(validation=report.to_dict(measurements=False), reference=reference)
        .execution_options(synchronize_session=False)
    )


def store_reference_only(*, session: Session, version_id: int, report: ValidationReport) -> None:
    """Write the solution's measurements (report.complete False) into the reference column only: the
    `validation` column keeps waiting for the matrix, which store_report writes over this."""
    session.execute(
        update(ScenarioVersion).where(ScenarioVersion.id == version_id).values(reference=report.to_dict())
        .execution_options(synchronize_session=False)
    )


def ensure_version_reference(*, version_id: int, package: ScenarioPackage, runner: Runner) -> ValidationReport:
    """The version's stored report, or compute it now (once per process) and store it in the row."""
    from app.core.db import new_session
    from app.grading.reference import ensure_reference

    with new_session() as session:
        stored = session.get(ScenarioVersion, version_id)
        report = current_report(stored.reference if stored else None, package)
    if report is not None:
        return report
    report = ensure_reference(package=package, runner=runner)
    if report.reference is not None:
        with new_session() as session:
            store_report(session=session, version_id=version_id, report=report)
            session.commit()
        log.info("scenario %s: reference stored in the database", package.slug)
    return report


def missing_references(*, session: Session, versions: list[ScenarioVersion]) -> list[int]:
    """The ids of the versions whose stored report is missing, from another engine, or still
    without its matrix (only the solution's measurements were stored)."""
    out = []
    for version in versions:
        try:
            package = ScenarioPackage.from_dict(version.content)
        except Exception:  # a broken stored package is reported when someone opens it, not here
            log.exception("scenario version %s: stored package does not load", version.id)
            continue
        report = current_report(version.reference, package)
        if report is None or not report.complete:
            out.append(version.id)
    return out
