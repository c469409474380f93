"""Admin scenario pages: the list, creating a scenario (blank template or a fork), archiving."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from starlette.responses import RedirectResponse, Response

from app.attempts.models import Attempt
from app.auth.deps import AdminUser, SessionDep
from app.engine.errors import PackageError
from app.engine.interfaces import DEFAULT_INTERFACE, INTERFACES, Interface, interface_label
from app.http.templating import render
from app.scenarios import authoring, drafts, jobs, validation
from app.scenarios.job_models import ScenarioJob
from app.scenarios.models import Scenario, ScenarioVersion

router = APIRouter(prefix="/admin/scenarios", tags=["pages"], include_in_schema=False)


EDITOR_BUNDLE = "vendor/codemirror/dojo-editor-markdown.min.js"  # DojoEditor with Python and Markdown


def editor_bundle() -> str | None:
    """The static path of the code editor bundle, when it is installed; plain textareas otherwise."""
    from app.core.paths import STATIC_DIR

    return EDITOR_BUNDLE if (STATIC_DIR / EDITOR_BUNDLE).is_file() else None


def version_url(request: Request, slug: str, number: int, name: str = "admin_version") -> str:
    return str(request.url_for(name, slug=slug, number=number))


@dataclass(frozen=True)
class VersionRow:
    version: ScenarioVersion
    validation: str  # validating | not validated | stale | valid | invalid
    attempts: int


@dataclass
class ScenarioRow:
    scenario: Scenario
    versions: list[VersionRow] = field(default_factory=list)  # newest first
    attempts: int = 0

    @property
    def interface_label(self) -> str:
        """The newest version's interface (a fork or a new version keeps it)."""
        newest = self.versions[0].version.content if self.versions else {}
        return interface_label(str(newest.get("interface", DEFAULT_INTERFACE)))


def _listing(session: Session) -> list[ScenarioRow]:
    """Every scenario with its versions (newest first), attempt counts and validation state."""
    attempts = dict(session.execute(select(Attempt.scenario_version_id, func.count(Attempt.id))
                                    .group_by(Attempt.scenario_version_id)).all())
    scenarios = session.scalars(select(Scenario).order_by(Scenario.slug))
    rows = {scenario.id: ScenarioRow(scenario) for scenario in scenarios}
    # A version whose validation job runs (a built-in's at start-up, or one an admin queued) is "validating".
    validating = set(session.scalars(select(ScenarioJob.scenario_version_id).where(
        ScenarioJob.kind == validation.KIND, ScenarioJob.status.in_(jobs.ACTIVE))))
    for version in session.scalars(select(ScenarioVersion).order_by(ScenarioVersion.version.desc())):
        row = rows[version.scenario_id]
        report = version.validation or {}
        state = ("validating" if version.id in validating
                 else "not validated" if "valid" not in report
                 else "stale" if report.get("content_hash") != version.content_hash
                 else "valid" if report["valid"] else "invalid")
        row.versions.append(VersionRow(version, state, attempts.get(version.id, 0)))
        row.attempts += attempts.get(version.id, 0)
    return list(rows.values())


def _page(request: Request, session: Session, *, error: str | None = None, form: dict[str, str] | None = None,
          status_code: int = 200) -> Response:
    interfaces: list[Interface] = list(INTERFACES.values())
    return render(request, "admin/scenarios.html",
                  {"rows": _listing(session), "error": error, "form": form or {}, "interfaces": interfaces,
                   "default_interface": DEFAULT_INTERFACE}, status_code=status_code)


@router.get("", name="admin_scenarios")
def scenario_list(request: Request, _user: AdminUser, session: SessionDep) -> Response:
    """Status, versions, attempts and validation state of every scenario, and the create form."""
    return _page(request, session)


@router.post("", name="admin_create_scenario")
def create_scenario(request: Request, user: AdminUser, session: SessionDep,
                    slug: Annotated[str, Form()] = "", title: Annotated[str, Form()] = "",
                    source: Annotated[str, Form()] = "blank",
                    interface: Annotated[str, Form()] = DEFAULT_INTERFACE) -> Response:
    """A new draft from an interface's blank template, or a fork of any version ("slug:number"), which
    keeps its source's interface."""
    session.commit()  # start the write transaction with the first write (SQLite)
    slug, title, interface = slug.strip().lower(), title.strip(), interface.strip()
    try:
        if interface not in INTERFACES:
            raise authoring.AuthoringError(422, f"interface: {interface[:40]!r} is not a challenge interface; "
                                                f"choose one of {', '.join(INTERFACES)}.")
        if not title:
            raise authoring.AuthoringError(422, "title: give the new scenario a title.")
        if source == "blank":
            if session.scalar(select(Scenario.id).where(Scenario.slug == slug)) is not None:
                raise authoring.AuthoringError(409, f"A scenario with slug {slug!r} already exists.")
            package = drafts.blank_package(slug=slug, title=title, interface=interface)
            version = authoring.save_package(session=session, package=package, user=user, action="scenario.created")
        else:
            from_slug, _, number = source.partition(":")
            _scenario, origin = authoring.find_version(session=session, slug=from_slug,
                                                       number=int(number) if number.isdigit() else -1)
            version = authoring.fork(session=session, source=origin, slug=slug, title=title, user=user)
    except (authoring.AuthoringError, PackageError) as exc:
        session.rollback()
        message = exc.detail if isinstance(exc, authoring.AuthoringError) else str(exc)
        status = exc.status_code if isinstance(exc, authoring.AuthoringError) else 422
        return _page(request, session, error=message,
                     form={"slug": slug, "title": title, "source": source, "interface": interface},
                     status_code=status)
    session.commit()
    return RedirectResponse(version_url(request, slug, version.version, "admin_edit_version"), status_code=303)


@router.post("/{slug}/archive", name="admin_archive_scenario")
def archive(request: Request, slug: str, user: AdminUser, session: SessionDep,
            archived: Annotated[bool, Form()] = True) -> Response:
    """Hide a scenario from candidates (or show it again); its versions and attempts are kept."""
    session.commit()
    scenario = session.scalar(select(Scenario).where(Scenario.slug == slug))
    if scenario is None:
        raise HTTPException(404, f"There is no scenario {slug[:80]!r}.")
    authoring.set_archived(session=session, scenario=scenario, archived=archived, user=user)
    session.commit()
    return RedirectResponse(str(request.url_for("admin_scenarios")), status_code=303)
