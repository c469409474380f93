"""The admin page of one scenario version: status, validation progress and matrix, publish, retire, rejudge, diff."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.responses import RedirectResponse, Response

from app.attempts.models import Attempt
from app.audit import service as audit
from app.auth.deps import AdminUser, SessionDep
from app.engine.package import ScenarioPackage
from app.engine.validator import ValidationReport
from app.http.templating import PageContext, render
from app.scenarios import authoring, bug_edits, jobs, presentation, reference, rejudge, validation
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import Scenario, ScenarioVersion
from app.scenarios.schemas import JobProgress
from app.scenarios.task_outcomes import Verdict
from app.web.admin_scenarios import version_url

router = APIRouter(prefix="/admin/scenarios/{slug}/versions/{number}", tags=["pages"], include_in_schema=False)

# What the page says after an action, chosen by the key in its ?notice= and never taken from the URL's
# text (a link with any other notice would put the sender's words in the page's green banner).
NOTICES = {
    "published": "Published.",
    "retired": "Retired.",
    "draft_saved": "Draft saved. Validate it again before publishing.",
    "bug_planted": "Bug planted. Validate to see which tests catch it.",
    "bug_removed": "Bug removed.",
}


def load(session: Session, slug: str, number: int) -> tuple[Scenario, ScenarioVersion]:
    try:
        return authoring.find_version(session=session, slug=slug, number=number)
    except authoring.AuthoringError as exc:
        raise HTTPException(exc.status_code, exc.detail) from None


@dataclass(frozen=True)
class VersionPage(PageContext):
    """Everything the version page shows."""

    scenario: Scenario
    version: ScenarioVersion
    package: ScenarioPackage
    report: ValidationReport | None  # the last validation, for this content or (not current) an earlier one
    current: bool
    matrix: presentation.Matrix | None
    problems: list[presentation.Problem]
    job: JobProgress | None
    refusal: str | None
    starter_diff: list[presentation.FileDiff]
    other_versions: Sequence[int]
    rejudge_job: ScenarioJob | None
    attempts: int
    credit_warning: str | None = None  # bugs that share all their detecting tests (publishing asks first)
    comment_warnings: Sequence[str] = ()  # planted text whose comments name the bug
    notice: str = ""
    error: str | None = None


def _context(session: Session, scenario: Scenario, version: ScenarioVersion) -> VersionPage:
    package = ScenarioPackage.from_dict(version.content)
    report = reference.stored_validation(version)
    job = jobs.latest_job(session=session, version_id=version.id, kind=validation.KIND)
    others = session.scalars(select(ScenarioVersion.version).where(
        ScenarioVersion.scenario_id == scenario.id, ScenarioVersion.id != version.id)
        .order_by(ScenarioVersion.version.desc())).all()
    return VersionPage(
        scenario=scenario, version=version, package=package, report=report,
        current=report is not None and report.content_hash == version.content_hash,
        matrix=presentation.matrix(report) if report else None,
        problems=presentation.problems(report) if report else [],
        job=jobs.progress(job) if job else None, refusal=authoring.refusal(version),
        starter_diff=presentation.starter_diff(package), other_versions=others,
        rejudge_job=jobs.latest_job(session=session, version_id=version.id, kind=rejudge.KIND),
        attempts=session.query(Attempt).filter(Attempt.scenario_version_id == version.id).count(),
        credit_warning=authoring.credit_warning(version.validation) if report is not None and
        report.content_hash == version.content_hash else None,
        comment_warnings=bug_edits.comment_warnings(
            package.solution_files, [(b.id, b.kind, b.title, list(b.edits)) for b in package.bugs]),
    )


@router.get("", name="admin_version")
def version_page(request: Request, slug: str, number: int, _user: AdminUser, session: SessionDep,
                 notice: str = "", bug: str = "") -> Response:
    """Everything about one version, with the actions its status allows (and a notice named by its key)."""
    scenario, version = load(session, slug, number)
    context = _context(session, scenario, version)
    return render(request, "admin/version.html", replace(context, notice=notice_text(notice, bug, context.package)))


def notice_text(key: str, bug: str, package: ScenarioPackage) -> str:
    """The message of a known key ("" for any other); a planted bug is named only when the version has it."""
    text = NOTICES.get(key, "")
    if key == "bug_planted" and any(b.id == bug for b in package.bugs):
        return text.replace("Bug ", f"Bug {bug} ", 1)
    return text


def notice_url(request: Request, slug: str, number: int, key: str, **params: str) -> str:
    """The version page showing the notice `key` (one of NOTICES)."""
    if key not in NOTICES:
        raise KeyError(f"unknown notice {key!r}")
    return str(request.url_for("admin_version", slug=slug, number=number).include_query_params(notice=key, **params))


@router.get("/validation", name="admin_version_validation")
def validation_fragment(request: Request, slug: str, number: int, _user: AdminUser, session: SessionDep) -> Response:
    """The validation section alone, which the page polls while a job runs (htmx)."""
    scenario, version = load(session, slug, number)
    return render(request, "admin/version.html", _context(session, scenario, version), block="validation")


def _back(request: Request, slug: str, number: int, notice: str) -> Response:
    return RedirectResponse(notice_url(request, slug, number, notice), status_code=303)


@router.post("/validate", name="admin_validate_version")
def validate(request: Request, slug: str, number: int, user: AdminUser, session: SessionDep) -> Response:
    """Queue a validation on the grading workers and come back to watch it."""
    session.commit()
    _scenario, version = load(session, slug, number)
    if jobs.active_job(session=session, version_id=version.id, kind=validation.KIND) is None:
        validation.start_validation(session=session, version=version, user_id=user.id)
        audit.record(session=session, actor=user, action="version.validation_started",
                     target=authoring.label(slug, version))
        session.commit()
    # No notice at the top: the validation section says where the job is, and replaces that line with
    # the verdict when it ends (a "Validation queued." above "Valid." was stale).
    return RedirectResponse(str(request.url_for("admin_version", slug=slug, number=number)), status_code=303)


def _action(request: Request, slug: str, number: int, user: Any, session: Session, act: Any, done: str) -> Response:
    session.commit()
    scenario, version = load(session, slug, number)
    try:
        act(session=session, slug=slug, version=version, user=user)
    except authoring.AuthoringError as exc:
        session.rollback()
        context = replace(_context(session, scenario, version), error=exc.detail)
        return render(request, "admin/version.html", context, status_code=exc.status_code)
    session.commit()
    return _back(request, slug, number, done)


@router.post("/publish", name="admin_publish_version")
def publish(request: Request, slug: str, number: int, user: AdminUser, session: SessionDep,
            without_per_bug_credit: Annotated[str, Form()] = "") -> Response:
    """Publish a validated draft; a refusal names each undetected bug, or the bugs that share all their
    detecting tests when the form did not say "publish without per-bug credit"."""
    act = functools.partial(authoring.publish, without_per_bug_credit=without_per_bug_credit == "yes")
    return _action(request, slug, number, user, session, act, "published")


@router.post("/retire", name="admin_retire_version")
def retire(request: Request, slug: str, number: int, user: AdminUser, session: SessionDep) -> Response:
    """No new attempts on this version; its attempts stay readable."""
    return _action(request, slug, number, user, session, authoring.retire, "retired")


@router.post("/new-draft", name="admin_new_draft")
def new_draft(request: Request, slug: str, number: int, user: AdminUser, session: SessionDep) -> Response:
    """Editing a published scenario starts a new draft version from its newest version."""
    session.commit()
    scenario, _version = load(session, slug, number)
    draft = authoring.draft_of(session=session, scenario=scenario, user=user)
    session.commit()
    return RedirectResponse(version_url(request, slug, draft.version, "admin_edit_version"), status_code=303)


@router.post("/rejudge", name="admin_rejudge_version")
def start_rejudge(request: Request, slug: str, number: int, user: AdminUser, session: SessionDep) -> Response:
    """Grade every finished attempt of the version again in the background."""
    session.commit()
    _scenario, version = load(session, slug, number)
    if jobs.active_job(session=session, version_id=version.id, kind=rejudge.KIND) is None:
        rejudge.start_rejudge(session=session, version=version, user_id=user.id)
        audit.record(session=session, actor=user, action="version.rejudge_started",
                     target=authoring.label(slug, version))
        session.commit()
    return RedirectResponse(version_url(request, slug, number, "admin_rejudge_page"), status_code=303)


@router.get("/rejudge", name="admin_rejudge_page")
def rejudge_page(request: Request, slug: str, number: int, _user: AdminUser, session: SessionDep) -> Response:
    """The latest rejudge: progress, then each attempt's old and new verdict and what changed."""
    scenario, version = load(session, slug, number)
    job = jobs.latest_job(session=session, version_id=version.id, kind=rejudge.KIND)
    tasks = [] if job is None else session.scalars(select(JobTask).where(
        JobTask.job_id == job.id, JobTask.attempt_id.is_not(None)).order_by(JobTask.attempt_id)).all()
    rows = [_rejudge_row(t) for t in tasks]
    context = {"scenario": scenario, "version": version, "job": jobs.progress(job) if job else None, "rows": rows}
    return render(request, "admin/rejudge.html", context)


@dataclass(frozen=True)
class RejudgeRow:
    """One attempt of a rejudge: its verdict before and after, and what changed (None until graded)."""

    attempt: int | None
    old: str | None
    new: str | None
    changes: list[str] | None


def _rejudge_row(task: JobTask) -> RejudgeRow:
    old, new = Verdict.from_json(task.previous), Verdict.from_json(task.outcome)
    return RejudgeRow(attempt=task.attempt_id, old=old.status if old else None, new=new.status if new else None,
                      changes=rejudge.changes(old, new) if task.status == "done" else None)


@router.get("/diff", name="admin_version_diff")
def diff(request: Request, slug: str, number: int, _user: AdminUser, session: SessionDep,
         against: int = 0) -> Response:
    """This version's package against another version of the same scenario (default: the one before)."""
    scenario, version = load(session, slug, number)
    _same, other = load(session, slug, against or max(1, number - 1))
    files = presentation.version_diff(ScenarioPackage.from_dict(other.content),
                                      ScenarioPackage.from_dict(version.content),
                                      old=f"v{other.version}", new=f"v{version.version}")
    return render(request, "admin/diff.html", {"scenario": scenario, "version": version, "other": other,
                                               "files": files})
