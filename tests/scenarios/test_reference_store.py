"""The reference lives in the version row: computed once, read by every grading, recomputed on engine change."""

from __future__ import annotations

import pytest
from dispatch.conftest import app_db  # noqa: F401
from dispatch.tiny_scenario import publish_tiny, tiny_package
from sqlalchemy import update

from app.attempts.models import Attempt
from app.core.db import new_session
from app.engine.measurements import Measurements
from app.engine.validator import ValidationReport
from app.grading import reference as file_cache
from app.scenarios import reference
from app.scenarios.models import ScenarioVersion
from app.users.service import create_user


def _tiny_version_id() -> int:
    with new_session() as session:
        version = publish_tiny(session=session)
        session.commit()
        return version.id


def _attempt_on(version_id: int, files: dict[str, str]) -> int:
    import uuid

    with new_session() as session:
        user = create_user(session=session, email=f"ref-{uuid.uuid4().hex[:8]}@example.com", password=None,
                           role="candidate")
        attempt = Attempt(user_id=user.id, scenario_version_id=version_id, kind="submit", status="queued",
                          files=files)
        session.add(attempt)
        session.commit()
        return attempt.id


@pytest.mark.bwrap
def test_grading_reads_the_reference_from_the_version_row(app_db: None, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from app.attempts.grading_job import grade_attempt
    from app.sandbox import get_runner

    version_id = _tiny_version_id()
    package = tiny_package()
    report = reference.ensure_version_reference(version_id=version_id, package=package, runner=get_runner())
    with new_session() as session:
        row = session.get(ScenarioVersion, version_id)
        assert row.reference is not None and row.reference["content_hash"] == package.content_hash
        assert row.validation is not None and row.validation["valid"] is True and "reference" not in row.validation
        assert [b["id"] for b in row.validation["bugs"]] == [b.id for b in package.bugs]
    assert report.valid

    # Another machine: no file cache, and computing a reference is not allowed.
    file_cache.cache_path(package).unlink(missing_ok=True)

    def no_validation(**_kwargs: object) -> ValidationReport:
        raise AssertionError("grading must not compute the reference when the row has it")

    monkeypatch.setattr(file_cache, "validate_package", no_validation)
    attempt_id = _attempt_on(version_id, dict(package.solution_files))
    assert grade_attempt(attempt_id) == "graded"
    with new_session() as session:
        attempt = session.get(Attempt, attempt_id)
        assert attempt.status == "passed", attempt.error
        assert all(bug["fixed"] for bug in attempt.result["bugs"])


def test_a_report_from_another_engine_or_package_is_not_current() -> None:
    package = tiny_package()
    good = ValidationReport(slug=package.slug, version=package.version, content_hash=package.content_hash,
                            reference=Measurements.from_json({"probes": {}}), engine=reference.engine_fingerprint())
    assert reference.current_report(good.to_dict(), package) is not None
    old_engine = {**good.to_dict(), "engine": "an-older-engine"}
    other_package = {**good.to_dict(), "content_hash": "0" * 64}
    no_measurements = {**good.to_dict(), "reference": None}
    for stored in (None, {}, old_engine, other_package, no_measurements, {"nonsense": 1}):
        assert reference.current_report(stored, package) is None


def test_missing_references_lists_versions_without_a_current_one(app_db: None) -> None:  # noqa: F811
    version_id = _tiny_version_id()
    package = tiny_package()
    good = ValidationReport(slug=package.slug, version=package.version, content_hash=package.content_hash,
                            reference=Measurements.from_json({"probes": {}}), engine=reference.engine_fingerprint())
    with new_session() as session:
        saved = session.get(ScenarioVersion, version_id)
        kept = (saved.reference, saved.validation)
        session.execute(update(ScenarioVersion).where(ScenarioVersion.id == version_id).values(reference=None))
        session.commit()
        try:
            version = session.get(ScenarioVersion, version_id)
            assert reference.missing_references(session=session, versions=[version]) == [version_id]
            reference.store_report(session=session, version_id=version_id, report=good)
            session.commit()
            session.refresh(version)
            assert reference.missing_references(session=session, versions=[version]) == []
            assert version.validation is not None and "reference" not in version.validation
        finally:  # other tests grade the tiny scenario against this row: put the real reference back
            session.execute(update(ScenarioVersion).where(ScenarioVersion.id == version_id)
                            .values(reference=kept[0], validation=kept[1]))
            session.commit()
