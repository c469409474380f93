"""Authoring: drafts from an upload, a fork or the blank template; editing; publishing; retiring; archiving.

Drafts are edited in place; a published version is frozen, and editing it starts a new draft version.
Every change is recorded in the audit log in the same transaction.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.audit import service as audit
from app.core.db import utcnow
from app.engine.errors import PackageError
from app.engine.fields import SLUG
from app.engine.package import ScenarioPackage
from app.scenarios.models import Scenario, ScenarioVersion
from app.scenarios.service import PUBLISHED, RETIRED, latest_version
from app.users.models import User

DRAFT = "draft"


class AuthoringError(Exception):
    """The action is not possible; `status_code` says why (404 unknown, 409 conflict, 422 bad input)."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail


def label(slug: str, version: ScenarioVersion) -> str:
    return f"{slug} v{version.version}"


def find_version(*, session: Session, slug: str, number: int) -> tuple[Scenario, ScenarioVersion]:
    """The scenario and its version `number`, or AuthoringError 404."""
    scenario = session.scalar(select(Scenario).where(Scenario.slug == slug))
    version = None if scenario is None else session.scalar(select(ScenarioVersion).where(
        ScenarioVersion.scenario_id == scenario.id, ScenarioVersion.version == number))
    if scenario is None or version is None:
        raise AuthoringError(404, f"Scenario {slug[:80]!r} has no version {number}.")
    return scenario, version


def _set_content(version: ScenarioVersion, package: ScenarioPackage) -> None:
    version.content, version.content_hash = package.to_dict(), package.content_hash
    version.title, version.difficulty, version.summary = package.title, package.difficulty, package.summary
    version.validation, version.reference = None, None  # stale now: validate again


def _new_version(session: Session, scenario: Scenario, package: ScenarioPackage, user: User | None) -> ScenarioVersion:
    latest = latest_version(session=session, scenario_id=scenario.id)
    version = ScenarioVersion(scenario_id=scenario.id, version=(latest.version + 1) if latest else 1,
                              title=package.title, difficulty=package.difficulty, summary=package.summary,
                              content=package.to_dict(), content_hash=package.content_hash, status=DRAFT,
                              created_by_id=user.id if user else None)
    session.add(version)
    session.flush()
    audit.record(session=session, actor=user, action="version.created", target=label(scenario.slug, version))
    return version


def save_package(*, session: Session, package: ScenarioPackage, user: User | None,
                 action: str = "scenario.imported") -> ScenarioVersion:
    """Store an uploaded package as a draft: a new scenario, the scenario's open draft, or a new draft version."""
    scenario = session.scalar(select(Scenario).where(Scenario.slug == package.slug))
    if scenario is None:
        scenario = Scenario(slug=package.slug, title=package.title, created_by_id=user.id if user else None)
        session.add(scenario)
        session.flush()
        audit.record(session=session, actor=user, action=action, target=package.slug)
    latest = latest_version(session=session, scenario_id=scenario.id)
    if latest is not None and latest.status == DRAFT:
        _set_content(latest, package)
        session.flush()
        audit.record(session=session, actor=user, action="version.edited", target=label(scenario.slug, latest))
        return latest
    return _new_version(session, scenario, package, user)


def draft_of(*, session: Session, scenario: Scenario, user: User | None) -> ScenarioVersion:
    """The scenario's open draft; editing a published scenario starts one from its newest version."""
    latest = latest_version(session=session, scenario_id=scenario.id)
    if latest is None:
        raise AuthoringError(404, f"Scenario {scenario.slug!r} has no versions.")
    if latest.status == DRAFT:
        return latest
    return _new_version(session, scenario, ScenarioPackage.from_dict(latest.content), user)


def update_draft(*, session: Session, slug: str, version: ScenarioVersion, package: ScenarioPackage,
                 user: User | None, action: str = "version.edited", **details: Any) -> ScenarioVersion:
    """Replace a draft's package (its validation becomes stale)."""
    if version.status != DRAFT:
        raise AuthoringError(409, f"Version {version.version} is {version.status}; only drafts can be edited.")
    if package.slug != slug:
        raise AuthoringError(422, f"The slug cannot change from {slug!r} (fork the scenario instead).")
    _set_content(version, package)
    session.flush()
    audit.record(session=session, actor=user, action=action, target=label(slug, version), **details)
    return version


def fork(*, session: Session, source: ScenarioVersion, slug: str, title: str, user: User | None) -> ScenarioVersion:
    """A new scenario whose draft v1 is a copy of `source` under a new slug and title."""
    if not SLUG.match(slug):
        raise AuthoringError(422, "slug: use lower-case letters, digits and hyphens (at most 63 characters).")
    if session.scalar(select(Scenario.id).where(Scenario.slug == slug)) is not None:
        raise AuthoringError(409, f"A scenario with slug {slug!r} already exists.")
    data = {**source.content, "slug": slug, "title": title.strip() or source.title}
    package = ScenarioPackage.from_dict(data)
    return save_package(session=session, package=package, user=user, action="scenario.created")


def refusal(version: ScenarioVersion) -> str | None:
    """Why the version cannot be published, naming each undetected bug; None when it can."""
    report = version.validation or {}
    if version.status != DRAFT:
        return f"Version {version.version} is {version.status}; only a draft can be published."
    if "valid" not in report or report.get("content_hash") != version.content_hash:
        return f"Version {version.version} has not been validated since its last change; validate it first."
    undetected = [b["id"] for b in report.get("bugs", []) if not b.get("detected_by")]
    if undetected:
        return "Not published: no test detects " + ", ".join(f"bug {b}" for b in undetected) + "."
    if not report["valid"]:
        return "Not published: the validation found problems: " + "; ".join(report.get("problems", []))
    return None


def _detected(report: dict[str, object] | None) -> dict[str, frozenset[str]]:
    """Bug id -> the tests that detect it, read from a stored validation report (JSON)."""
    bugs = (report or {}).get("bugs")
    out: dict[str, frozenset[str]] = {}
    for bug in bugs if isinstance(bugs, list) else []:
        if isinstance(bug, dict) and isinstance(bug.get("id"), str):
            tests = bug.get("detected_by")
            listed = tests if isinstance(tests, list) else []
            out[bug["id"]] = frozenset(t for t in listed if isinstance(t, str))
    return out


def shared_tests(report: dict[str, object] | None) -> list[tuple[str, str]]:
    """(a, b): every test that catches bug a also catches bug b. While b is unfixed, a fix of a changes no
    test, so grading says "cannot tell yet" for a instead of crediting it (app/grading/scoring.py)."""
    detected = _detected(report)
    return [(a, b) for a, tests in detected.items() for b, others in detected.items()
            if a != b and tests and tests <= others]


def credit_warning(report: dict[str, object] | None) -> str | None:
    """What the version page and a refused publish say when bugs share all their detecting tests."""
    pairs = shared_tests(report)
    if not pairs:
        return None
    detected = _detected(report)
    same: dict[frozenset[str], list[str]] = {}
    for a, b in pairs:  # bugs caught by exactly the same tests are named once, together
        if detected[a] == detected[b]:
            group = same.setdefault(detected[a], [])
            group.extend(x for x in (a, b) if x not in group)
    said = "; ".join([f"{', '.join(group[:-1])} and {group[-1]} are caught by exactly the same tests"
                      for group in same.values()]
                     + [f"every test that catches {a} also catches {b}" for a, b in pairs
                        if detected[a] != detected[b]])
    return (f"Bugs share all their detecting tests ({said}): a submission that fixes one of them while "
            "another remains cannot be credited for it per bug (its verdict is \"cannot tell yet\"). Give each "
            "bug a test of its own, or publish without per-bug credit.")


def publish(*, session: Session, slug: str, version: ScenarioVersion, user: User | None,
            without_per_bug_credit: bool = False) -> ScenarioVersion:
    """Freeze a valid draft as the scenario's published version (new attempts get it). Bugs that share
    all their detecting tests need `without_per_bug_credit` (said explicitly by the admin)."""
    why = refusal(version)
    if why is not None:
        raise AuthoringError(409, why)
    warning = credit_warning(version.validation)
    if warning is not None and not without_per_bug_credit:
        raise AuthoringError(409, f"Not published: {warning}")
    version.status, version.published_at = PUBLISHED, utcnow()
    session.flush()
    audit.record(session=session, actor=user, action="version.published", target=label(slug, version))
    return version


def retire(*, session: Session, slug: str, version: ScenarioVersion, user: User | None) -> ScenarioVersion:
    """No new attempts on this version; its attempts stay readable."""
    if version.status != PUBLISHED:
        raise AuthoringError(409, f"Version {version.version} is {version.status}; only a published one retires.")
    version.status = RETIRED
    session.flush()
    audit.record(session=session, actor=user, action="version.retired", target=label(slug, version))
    return version


def set_archived(*, session: Session, scenario: Scenario, archived: bool, user: User | None) -> Scenario:
    """Hide the scenario from candidates (or show it again); nothing is deleted."""
    scenario.archived = archived
    session.flush()
    audit.record(session=session, actor=user, action="scenario.archived" if archived else "scenario.unarchived",
                 target=scenario.slug)
    return scenario


class ErrorFields(TypedDict):
    """Where a package error points, for the upload's 422 answer; None where the message does not say."""

    message: str
    file: str | None
    line: int | None
    field: str | None


def parse_error_fields(error: PackageError) -> ErrorFields:
    """{message, file, field, line} from a PackageError's "file:line: field: problem" message."""
    message = str(error)
    head, _, rest = message.partition(": ")
    file, _, line = head.partition(":")
    field, _, problem = rest.partition(": ")
    toml_line = re.search(r"at line (\d+)", message)  # the TOML parser's own position
    number = int(line) if line.isdigit() else (int(toml_line.group(1)) if toml_line else None)
    return {"message": message, "file": file or None, "line": number,
            "field": field if problem and " " not in field else None}
