"""JSON API for scenario authoring (admins only): upload, read, validate, publish, export, retire, rejudge."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, UploadFile
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict
from sqlalchemy.orm import Session

from app.audit import service as audit
from app.auth.deps import AdminUser, SessionDep
from app.core.settings import get_settings
from app.engine.errors import PackageError
from app.engine.package import ScenarioPackage, load_zip
from app.scenarios import authoring, bug_edits, jobs, rejudge, validation
from app.scenarios.export import package_zip
from app.scenarios.models import ScenarioVersion
from app.scenarios.schemas import (
    BugDetectedOut,
    JobProgress,
    MaskingOut,
    UploadedOut,
    ValidationOut,
    VersionOut,
)

router = APIRouter(prefix="/api/admin/scenarios", tags=["scenario authoring"])


def version_view(*, session: Session, slug: str, version: ScenarioVersion) -> VersionOut:
    """The version as the API shows it: status, the validation report (or null) and the latest jobs."""
    report = version.validation if version.validation and "valid" in version.validation else None
    package = ScenarioPackage.from_dict(version.content)
    current = {kind: jobs.latest_job(session=session, version_id=version.id, kind=kind)
               for kind in (validation.KIND, rejudge.KIND)}
    return VersionOut(
        slug=slug, version=version.version, status=version.status, title=version.title,
        content_hash=version.content_hash,
        validation=None if report is None else ValidationOut(
            valid=report["valid"], current=report.get("content_hash") == version.content_hash,
            bugs=[BugDetectedOut(id=b["id"], detected_by=b["detected_by"]) for b in report.get("bugs", [])],
            problems=report.get("problems", []), warnings=report.get("warnings", []),
            masking=[MaskingOut(**pair) for pair in report.get("masking", [])],
            shared_tests=[[a, b] for a, b in authoring.shared_tests(report)],
        ),
        jobs={kind: jobs.progress(job) if job else None for kind, job in current.items()},
        comment_warnings=bug_edits.comment_warnings(
            package.solution_files, [(b.id, b.kind, b.title, list(b.edits)) for b in package.bugs]),
    )


def _error(exc: authoring.AuthoringError) -> HTTPException:
    return HTTPException(exc.status_code, exc.detail)


def _found(session: Session, slug: str, number: int) -> tuple[Any, ScenarioVersion]:
    try:
        return authoring.find_version(session=session, slug=slug, number=number)
    except authoring.AuthoringError as exc:
        raise _error(exc) from None


@router.post("", status_code=201, response_model=UploadedOut)
async def upload(file: UploadFile, user: AdminUser, session: SessionDep) -> Any:
    """Store a zipped package as a draft; 422 names the file, field and line of the first problem."""
    limit = get_settings().scenario_zip_max_bytes
    data = await file.read(limit + 1)
    try:
        package = load_zip(data, max_zip_bytes=limit)
    except PackageError as exc:
        return JSONResponse({"detail": str(exc), **authoring.parse_error_fields(exc)}, status_code=422)
    session.commit()  # end the sign-in's read transaction: the draft is written in a fresh one
    version = authoring.save_package(session=session, package=package, user=user)
    session.commit()
    return UploadedOut(slug=package.slug, version=version.version, status=version.status)


@router.get("/{slug}/versions/{number}")
def read_version(slug: str, number: int, _user: AdminUser, session: SessionDep) -> VersionOut:
    """Status, validation report and job progress of one version."""
    _scenario, version = _found(session, slug, number)
    return version_view(session=session, slug=slug, version=version)


@router.post("/{slug}/versions/{number}/validate", status_code=202)
def validate(slug: str, number: int, user: AdminUser, session: SessionDep) -> JobProgress:
    """Queue a validation on the grading workers (an unfinished one is returned instead of a second)."""
    _scenario, version = _found(session, slug, number)
    job = jobs.active_job(session=session, version_id=version.id, kind=validation.KIND)
    if job is None:
        job = validation.start_validation(session=session, version=version, user_id=user.id)
        audit.record(session=session, actor=user, action="version.validation_started",
                               target=authoring.label(slug, version))
        session.commit()
    return jobs.progress(job)


class PublishBody(BaseModel):
    """Optional: bugs that share all their detecting tests publish only when this is said explicitly."""

    model_config = ConfigDict(extra="forbid")

    without_per_bug_credit: bool = False


@router.post("/{slug}/versions/{number}/publish")
def publish(slug: str, number: int, user: AdminUser, session: SessionDep,
            body: Annotated[PublishBody | None, Body()] = None) -> VersionOut:
    """Publish a validated draft; 409 names each undetected bug (or why else it cannot be published),
    or the bugs that share all their detecting tests unless `without_per_bug_credit` is true."""
    _scenario, version = _found(session, slug, number)
    try:
        authoring.publish(session=session, slug=slug, version=version, user=user,
                          without_per_bug_credit=body is not None and body.without_per_bug_credit)
    except authoring.AuthoringError as exc:
        session.rollback()
        raise _error(exc) from None
    session.commit()
    return version_view(session=session, slug=slug, version=version)


@router.post("/{slug}/versions/{number}/retire")
def retire(slug: str, number: int, user: AdminUser, session: SessionDep) -> VersionOut:
    """No new attempts on this version; its attempts stay readable."""
    _scenario, version = _found(session, slug, number)
    try:
        authoring.retire(session=session, slug=slug, version=version, user=user)
    except authoring.AuthoringError as exc:
        session.rollback()
        raise _error(exc) from None
    session.commit()
    return version_view(session=session, slug=slug, version=version)


@router.post("/{slug}/versions/{number}/rejudge", status_code=202)
def start_rejudge(slug: str, number: int, user: AdminUser, session: SessionDep) -> JobProgress:
    """Grade every finished attempt of the version again in the background."""
    _scenario, version = _found(session, slug, number)
    job = jobs.active_job(session=session, version_id=version.id, kind=rejudge.KIND)
    if job is None:
        job = rejudge.start_rejudge(session=session, version=version, user_id=user.id)
        audit.record(session=session, actor=user, action="version.rejudge_started",
                               target=authoring.label(slug, version))
        session.commit()
    return jobs.progress(job)


@router.get("/{slug}/versions/{number}/export")
def export(slug: str, number: int, _user: AdminUser, session: SessionDep) -> Response:
    """The version's package as a zip that upload and `dojo scenarios import` read back."""
    _scenario, version = _found(session, slug, number)
    body = package_zip(ScenarioPackage.from_dict(version.content))
    name = f"{slug}-v{version.version}.zip"
    disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(body, media_type="application/zip", headers=disposition)
