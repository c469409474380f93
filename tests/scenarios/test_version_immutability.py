"""A scenario version's package never changes once written; its status and validation may."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import flag_modified

from app.scenarios.models import ImmutableVersionError, Scenario, ScenarioVersion


def _version(db: Session, status: str = "published") -> ScenarioVersion:
    scenario = Scenario(slug="frozen", title="Frozen")
    db.add(scenario)
    db.flush()
    version = ScenarioVersion(scenario_id=scenario.id, version=1, title="Frozen", difficulty="easy",
                              content={"files": ["model.py"]}, content_hash="abc", status=status)
    db.add(version)
    db.flush()
    return version


def test_changing_content_of_a_version_is_refused(db: Session) -> None:
    version = _version(db)
    version.content = {"files": ["model.py", "train.py"]}
    with pytest.raises(ImmutableVersionError, match="content cannot change"):
        db.flush()


def test_mutating_content_in_place_is_refused(db: Session) -> None:
    version = _version(db)
    version.content["files"].append("evil.py")
    flag_modified(version, "content")
    with pytest.raises(ImmutableVersionError):
        db.flush()


def test_a_draft_is_edited_in_place_until_it_publishes(db: Session) -> None:
    version = _version(db, status="draft")
    version.content = {"files": ["model.py", "train.py"]}
    version.content_hash = "def"
    db.flush()
    version.status = "published"
    db.flush()
    version.content = {"files": ["model.py"]}
    with pytest.raises(ImmutableVersionError, match="content cannot change"):
        db.flush()


def test_status_validation_and_reference_may_change(db: Session) -> None:
    version = _version(db, status="draft")
    version.status = "published"
    version.validation = {"valid": True}
    version.reference = {"probes": {}}
    db.flush()
    db.refresh(version)
    assert version.status == "published" and version.validation == {"valid": True}
