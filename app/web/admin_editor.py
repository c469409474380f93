"""Editing a draft: title, difficulty, summary, time limit, training, brief (with a preview), questions, solution."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from app.auth.deps import AdminUser, SessionDep
from app.engine.errors import PackageError
from app.engine.package import DIFFICULTIES, TRAINING_KEYS, ScenarioPackage
from app.http.templating import render
from app.scenarios import authoring, drafts
from app.web.admin_scenarios import editor_bundle, version_url
from app.web.admin_versions import load, notice_url
from app.web.markdown import render_markdown

router = APIRouter(prefix="/admin/scenarios/{slug}/versions/{number}", tags=["pages"], include_in_schema=False)


def form_of(package: ScenarioPackage) -> dict[str, str]:
    form = {"title": package.title, "summary": package.summary, "difficulty": package.difficulty,
            "time_limit_minutes": str(package.time_limit_minutes), "brief": package.brief,
            "questions": drafts.questions_text(package.questions)}
    form.update({f"training.{k}": str(v) for k, v in package.training.items()})
    form.update({f"solution/{name}": text for name, text in package.solution_files.items()})
    return form


def _page(request: Request, slug: str, version: Any, form: dict[str, str], *, error: str | None = None,
          status_code: int = 200) -> Response:
    package = ScenarioPackage.from_dict(version.content)
    return render(request, "admin/edit.html", {
        "slug": slug, "version": version, "package": package, "form": form, "error": error,
        "difficulties": DIFFICULTIES, "training_keys": list(TRAINING_KEYS),
        "preview": render_markdown(form.get("brief", "")), "editor_bundle": editor_bundle(),
    }, status_code=status_code)


@router.get("/edit", name="admin_edit_version")
def edit_page(request: Request, slug: str, number: int, _user: AdminUser, session: SessionDep) -> Response:
    """The draft's fields in one form (a published version sends you to start a new draft instead)."""
    _scenario, version = load(session, slug, number)
    if version.status != "draft":
        return RedirectResponse(version_url(request, slug, number), status_code=303)
    return _page(request, slug, version, form_of(ScenarioPackage.from_dict(version.content)))


@router.post("/edit", name="admin_save_version")
async def save(request: Request, slug: str, number: int, user: AdminUser, session: SessionDep) -> Response:
    """Save the draft; a problem (a bug's edit no longer applies, a bad value) keeps the form and names it."""
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    session.commit()
    _scenario, version = load(session, slug, number)
    if form.get("action") == "preview":  # without JavaScript: show the preview, save nothing
        return _page(request, slug, version, form)
    try:
        package = drafts.edited(ScenarioPackage.from_dict(version.content), form)
        authoring.update_draft(session=session, slug=slug, version=version, package=package, user=user)
    except (PackageError, authoring.AuthoringError) as exc:
        session.rollback()
        message = exc.detail if isinstance(exc, authoring.AuthoringError) else str(exc)
        return _page(request, slug, version, form, error=message, status_code=422)
    session.commit()
    return RedirectResponse(notice_url(request, slug, number, "draft_saved"), status_code=303)


@router.post("/brief-preview", name="admin_brief_preview")
async def brief_preview(request: Request, slug: str, number: int, _user: AdminUser, session: SessionDep) -> Response:
    """The brief rendered as candidates will see it (an htmx fragment of the edit page)."""
    _scenario, version = load(session, slug, number)
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    return render(request, "admin/edit.html", {"preview": render_markdown(form.get("brief", ""))},
                  block="brief_preview")
