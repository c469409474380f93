"""Planting a bug: its description, and its edits derived from an edited copy of the solution."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from starlette.responses import RedirectResponse, Response

from app.auth.deps import AdminUser, SessionDep
from app.engine.errors import PackageError
from app.engine.interfaces import get_interface
from app.engine.kinds import BUG_KINDS
from app.engine.package import COMPONENTS, ScenarioPackage
from app.http.templating import render
from app.scenarios import authoring, bug_edits, drafts
from app.web.admin_scenarios import editor_bundle
from app.web.admin_versions import load, notice_url

router = APIRouter(prefix="/admin/scenarios/{slug}/versions/{number}/bugs", tags=["pages"], include_in_schema=False)
TEXT_FIELDS = ("id", "kind", "component", "title", "hint1", "hint2", "hint3", "expected", "detect", "fix")


def _draft(session: Any, slug: str, number: int) -> Any:
    _scenario, version = load(session, slug, number)
    if version.status != "draft":
        raise HTTPException(409, f"Version {number} is {version.status}; plant bugs in a draft version.")
    return version


def _page(request: Request, slug: str, version: Any, form: dict[str, str], *, checked: list[Any] | None = None,
          error: str | None = None, proposal: str | None = None, status_code: int = 200) -> Response:
    package = ScenarioPackage.from_dict(version.content)
    # A comment the planted text leaves that names the bug gives it away in the starter: said before adding.
    warnings = [] if not checked else bug_edits.comment_warnings(package.solution_files, [(
        form.get("id", "").strip() or "(new)", form.get("kind", ""), form.get("title", ""), [c.edit for c in checked])])
    return render(request, "admin/bug.html", {
        "slug": slug, "version": version, "package": package, "form": form,
        "kinds": BUG_KINDS, "components": COMPONENTS, "checked": checked, "error": error, "proposal": proposal,
        "templates": bug_edits.templates_for(package.interface), "editor_bundle": editor_bundle(),
        # the interface's own files (pipeline-v1's model.py): shown, never edited by a bug
        "readonly_files": get_interface(package.interface).readonly_files,
        "comment_warnings": warnings,
    }, status_code=status_code)


@router.get("/new", name="admin_new_bug")
def new_bug(request: Request, slug: str, number: int, _user: AdminUser, session: SessionDep,
            kind: str = "") -> Response:
    """The form, with a copy of the solution to edit; a known kind's template proposes the edit."""
    version = _draft(session, slug, number)
    package = ScenarioPackage.from_dict(version.content)
    files, proposal = dict(package.solution_files), None
    if kind:
        proposed = bug_edits.propose(kind, package.solution_files, package.interface)
        if proposed is not None:
            files, where = proposed
            proposal = f"The {kind} template changed {where}; adjust it if your code differs."
        else:
            proposal = f"No template for {kind} fits this solution; edit the code yourself."
    form = {"kind": kind, "id": kind, **{f"edited/{n}": t for n, t in files.items()}}
    return _page(request, slug, version, form, proposal=proposal)


def _edits(package: ScenarioPackage, form: dict[str, str]) -> tuple[list[Any], list[bug_edits.DerivedEdit]]:
    edited = {name: form.get(f"edited/{name}", package.solution_files[name]) for name in package.files}
    edits = bug_edits.derive_edits(package.solution_files, edited)
    return edits, bug_edits.check_edits(package.solution_files, package.starter_files, edits)


@router.post("", name="admin_add_bug")
async def add_bug(request: Request, slug: str, number: int, user: AdminUser, session: SessionDep) -> Response:
    """"Check edits" shows the derived edits; "Add bug" also stores the bug in the draft."""
    form = {k: v.replace("\r\n", "\n") for k, v in (await request.form()).items() if isinstance(v, str)}
    session.commit()
    version = _draft(session, slug, number)
    package = ScenarioPackage.from_dict(version.content)
    edits, checked = _edits(package, form)
    problem = next((c.problem for c in checked if c.problem), None)
    if not edits:
        problem = "The copy of the solution is unchanged: edit the code to plant the bug."
    if form.get("action") != "add" or problem:
        return _page(request, slug, version, form, checked=checked, error=problem,
                     status_code=422 if form.get("action") == "add" else 200)
    bug: drafts.NewBug = {"id": form.get("id", "").strip(), "kind": form.get("kind", ""),
                   "component": form.get("component", ""), "title": form.get("title", "").strip(),
                   "hints": [form.get(f"hint{n}", "").strip() for n in (1, 2, 3)],
                   "explanation": {k: form.get(k, "").strip() for k in ("expected", "detect", "fix")},
                   "edits": [e.to_dict() for e in edits]}
    try:
        _check_bug_fields(bug)
        new = drafts.with_bug(package, bug)
        authoring.update_draft(session=session, slug=slug, version=version, package=new, user=user,
                               action="version.bug_added", bug=bug["id"])
    except (PackageError, authoring.AuthoringError) as exc:
        session.rollback()
        message = exc.detail if isinstance(exc, authoring.AuthoringError) else str(exc)
        return _page(request, slug, version, form, checked=checked, error=message, status_code=422)
    session.commit()
    return RedirectResponse(notice_url(request, slug, number, "bug_planted", bug=str(bug["id"])), status_code=303)


def _check_bug_fields(bug: drafts.NewBug) -> None:
    from app.engine.fields import SLUG

    if not SLUG.match(bug["id"]):
        raise PackageError("id: use lower-case letters, digits and hyphens")
    if bug["kind"] not in BUG_KINDS:
        raise PackageError("kind: choose a kind from the catalogue")
    missing = [name for name, value in (("title", bug["title"]), ("hints", all(bug["hints"])),
                                        *bug["explanation"].items()) if not value]
    if missing:
        raise PackageError(f"{missing[0]}: is required (three hints, and expected, detect and fix)")


@router.post("/{bug_id}/remove", name="admin_remove_bug")
def remove_bug(request: Request, slug: str, number: int, bug_id: str, user: AdminUser,
               session: SessionDep) -> Response:
    """Take a bug out of the draft."""
    session.commit()
    version = _draft(session, slug, number)
    try:
        package = drafts.without_bug(ScenarioPackage.from_dict(version.content), bug_id)
        authoring.update_draft(session=session, slug=slug, version=version, package=package, user=user,
                               removed_bug=bug_id)
    except PackageError as exc:
        session.rollback()
        raise HTTPException(422, str(exc)) from None
    session.commit()
    return RedirectResponse(notice_url(request, slug, number, "bug_removed"), status_code=303)
