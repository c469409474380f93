"""What the workspace page posts: autosaves, Run/Submit/scratch, cancel, hints, reset, restore, editor events.

Each action works as a plain form post (a redirect back to the page, or the page again with the
message) and, from htmx, answers with the fragment to swap. A refusal stores nothing and loses no text:
Run/Submit check the text, the kind and the rate limits before writing the attempt and the draft in one
transaction, the page shown again carries the posted text, and a refused save leaves the stored draft as
it was.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.responses import JSONResponse, RedirectResponse, Response

from app.attempts import service as attempts_service
from app.attempts.models import AttemptKind
from app.auth.deps import CurrentUser, SessionDep
from app.core.db import as_utc
from app.core.errors import DojoError
from app.engine.scratch import FILE_NAME as SCRATCH_FILE
from app.http.params import RowIdPath
from app.http.templating import is_htmx, render
from app.interviews import state
from app.interviews.live import workspace_hook as live
from app.interviews.live.recording import LiveReport
from app.web.limits import CODE_FIELD_PREFIX
from app.web.workspace import PAGE, InterviewQuery, own_attempt, page_context, render_panel, workspace_for
from app.workspace import drafts, events, hints, history
from app.workspace.context import Workspace, open_interview_workspace

router = APIRouter(tags=["pages"], include_in_schema=False)
NOTE_FIELD_PREFIX = "note:"


class DraftBody(BaseModel):
    """An autosave from the page's script."""

    model_config = ConfigDict(extra="forbid")

    files: dict[str, str] = Field(default_factory=dict)
    notes: dict[str, str] = Field(default_factory=dict)
    revision: int | None = Field(default=None, ge=0, le=2**31)
    force: bool = False
    # Inside an interview: keystrokes, cursor line, file and focus for followers and playback.
    live: LiveReport | None = None


class EventBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(max_length=40)
    # What the editor sends ({file, chars, lines} for a paste, {seconds} for focus_lost) is untrusted:
    # events.clean_detail checks each value, with its own refusal message, and keeps only the stored shape.
    detail: dict[str, object] = Field(default_factory=dict)


def page_url(request: Request, ws: Workspace, **params: Any) -> str:
    query = {k: v for k, v in {"interview": ws.interview_id, **params}.items() if v is not None}
    return str(request.url_for("challenge_page", slug=ws.slug).include_query_params(**query))


def _posted(form: FormData) -> tuple[dict[str, str], dict[str, str]]:
    """The files (file:<name>) and notes (note:<question id>) of a workspace form."""
    files = {k[len(CODE_FIELD_PREFIX):]: v for k, v in form.items()
             if k.startswith(CODE_FIELD_PREFIX) and isinstance(v, str)}
    notes = {k[len(NOTE_FIELD_PREFIX):]: v for k, v in form.items()
             if k.startswith(NOTE_FIELD_PREFIX) and isinstance(v, str)}
    return files, notes


def refused(request: Request, session: Session, ws: Workspace, error: DojoError,
            posted: tuple[dict[str, str], dict[str, str]] | None = None) -> Response:
    """The message in the page's notice area (htmx), or the whole page again with it (no script).

    Nothing of the request is stored; the page shown again carries the text it posted, so none is lost.
    """
    session.rollback()
    if is_htmx(request):
        response = render(request, PAGE, {"notice": error.message, "notice_link": getattr(error, "link", None)},
                          block="notice")
        response.headers.update({"HX-Retarget": "#workspace-notice", "HX-Reswap": "innerHTML"})
        return response
    context = replace(page_context(request, session, ws, notice=error.message),
                      notice_link=getattr(error, "link", None))
    if posted is not None:
        stored = context.draft
        context = replace(context, draft=drafts.DraftText(files={**stored.files, **posted[0]},
                                                          notes={**stored.notes, **posted[1]},
                                                          revision=stored.revision))
    response = render(request, PAGE, context, status_code=error.status_code)
    response.headers.update(error.headers)
    return response


@router.post("/challenges/{slug}/draft", name="autosave_draft")
def autosave_draft(slug: str, user: CurrentUser, session: SessionDep, body: Annotated[DraftBody, Body()],
                   interview: InterviewQuery = None) -> Response:
    """The page script's debounced autosave: {saved, revision}; saved=false when another tab is ahead."""
    ws = workspace_for(session, user, slug, interview)
    before = live.files_before(session, ws)
    try:
        outcome = drafts.save_draft(session=session, ws=ws, files=body.files, notes=body.notes,
                                    base_revision=body.revision, force=body.force)
        live.after_save(session, ws, before, outcome.draft if outcome.saved else None, body.live)
    except DojoError as exc:
        session.rollback()
        return JSONResponse({"saved": False, "detail": exc.message}, status_code=exc.status_code)
    session.commit()
    draft = outcome.draft
    return JSONResponse({"saved": outcome.saved, "revision": draft.revision,
                         "updated_at": as_utc(draft.updated_at).isoformat()})


@router.post("/challenges/{slug}/draft/form", name="save_draft_form")
async def save_draft_form(request: Request, slug: str, user: CurrentUser, session: SessionDep,
                          interview: InterviewQuery = None) -> Response:
    """Without script: "Save" or "save and show another file" from the plain form."""
    ws = workspace_for(session, user, slug, interview)
    form = await request.form()
    files, notes = _posted(form)
    try:
        drafts.save_draft(session=session, ws=ws, files=files, notes=notes, base_revision=None, force=True)
    except DojoError as exc:
        return refused(request, session, ws, exc, posted=(files, notes))
    session.commit()
    shown = form.get("show")
    return RedirectResponse(page_url(request, ws, file=shown if isinstance(shown, str) else None), status_code=303)


@router.post("/challenges/{slug}/attempts", name="workspace_attempt")
async def start_attempt(request: Request, slug: str, user: CurrentUser, session: SessionDep,
                        interview: InterviewQuery = None) -> Response:
    """Run, Submit or Run scratch: queue the attempt of the posted text, and store that text as the draft.

    Checked first (the text, then the kind and the rate limits in create_attempt), written only once
    accepted, in one transaction: a refused request stores nothing (the page keeps the text it posted).
    """
    session.commit()  # end the sign-in's read transaction; the attempt is written in a fresh one
    ws = workspace_for(session, user, slug, interview)
    form = await request.form()
    files, notes = _posted(form)
    kind = str(form.get("kind", AttemptKind.run.value))
    try:
        text = drafts.with_posted(session=session, ws=ws, files=files, notes=notes)
        code = {n: t for n, t in text.files.items() if n != SCRATCH_FILE or kind == AttemptKind.scratch.value}
        attempt = attempts_service.create_attempt(
            session=session, user=user, scenario=ws.slug, files=code, kind=kind, notes=text.notes,
            interview_id=ws.interview_id)
        before = live.files_before(session, ws)
        saved = drafts.save_draft(session=session, ws=ws, files=files, notes=notes, base_revision=None, force=True)
        live.after_save(session, ws, before, saved.draft, live.report_from_form(form.get("live")))
    except DojoError as exc:
        return refused(request, session, ws, exc, posted=(files, notes))
    session.commit()
    if not is_htmx(request):
        return RedirectResponse(page_url(request, ws, attempt=attempt.id) + "#results", status_code=303)
    response = render_panel(request, session, ws, attempt, refresh_history=True)  # History lists it at once
    # The posted text is now the draft's newest revision; the page script continues from it.
    response.headers["X-Draft-Revision"] = str(saved.draft.revision)
    return response


@router.post("/challenges/{slug}/attempts/{attempt_id}/cancel", name="cancel_workspace_attempt")
def cancel_attempt(request: Request, slug: str, attempt_id: RowIdPath, user: CurrentUser, session: SessionDep,
                   interview: InterviewQuery = None) -> Response:
    """Withdraw a queued attempt; once grading started it runs to the end."""
    ws = workspace_for(session, user, slug, interview)
    attempt = own_attempt(session, ws, attempt_id)
    try:
        attempts_service.cancel_own_attempt(session=session, attempt_id=attempt.id, user=user)
    except DojoError as exc:
        return refused(request, session, ws, exc)
    session.commit()
    session.refresh(attempt)
    if not is_htmx(request):
        return RedirectResponse(page_url(request, ws, attempt=attempt.id) + "#results", status_code=303)
    return render_panel(request, session, ws, attempt, refresh_history=True)


@router.post("/challenges/{slug}/hint", name="take_hint")
def take_hint(request: Request, slug: str, user: CurrentUser, session: SessionDep,
              offer: Annotated[str, Form(max_length=20)] = "", confirm: Annotated[str, Form(max_length=10)] = "",
              interview: InterviewQuery = None) -> Response:
    """Reveal the offered hint and record when; without confirm=yes, ask first with its cost (the page's
    script asks in a dialog and sends the answer)."""
    ws = workspace_for(session, user, slug, interview)
    if confirm != "yes":
        on_offer = hints.next_offer(session=session, ws=ws)
        if on_offer is not None and on_offer.key == offer and not on_offer.waiting_for_matrix:
            query = {"interview": ws.interview_id} if ws.interview else {}
            return render(request, "workspace/confirm_hint.html", {"ws": ws, "offer": on_offer, "query": query})
    try:
        hints.reveal(session=session, ws=ws, offer_key=offer)
    except DojoError as exc:
        return refused(request, session, ws, exc)
    session.commit()
    if not is_htmx(request):
        return RedirectResponse(page_url(request, ws) + "#hints", status_code=303)
    context = {"ws": ws, "query": {"interview": ws.interview_id} if ws.interview else {},
               "hint_offer": hints.next_offer(session=session, ws=ws),
               "hints_shown": hints.shown_hints(session=session, ws=ws), "time_is_up": ws.time_is_up()}
    return render(request, PAGE, context, block="hints_body")


@router.post("/challenges/{slug}/reset", name="reset_file")
def reset_file(request: Request, slug: str, user: CurrentUser, session: SessionDep,
               file: Annotated[str, Form(max_length=80)] = "", confirm: Annotated[str, Form(max_length=10)] = "",
               interview: InterviewQuery = None) -> Response:
    """Put one file back to the starter; without confirm=yes, ask first (the page's script asks in a dialog)."""
    ws = workspace_for(session, user, slug, interview)
    if confirm != "yes":
        return render(request, "workspace/confirm_reset.html",
                      {"ws": ws, "file": file, "query": {"interview": ws.interview_id} if ws.interview else {}})
    try:
        ws.refuse_after_deadline()
        drafts.reset_file(session=session, ws=ws, name=file)
        events.record_reset(session=session, ws=ws, name=file)
    except DojoError as exc:
        return refused(request, session, ws, exc)
    session.commit()
    return RedirectResponse(page_url(request, ws, file=file), status_code=303)


@router.post("/challenges/{slug}/attempts/{attempt_id}/restore", name="restore_attempt")
def restore_attempt(request: Request, slug: str, attempt_id: RowIdPath, user: CurrentUser, session: SessionDep,
                    interview: InterviewQuery = None) -> Response:
    """Open an old attempt's files in the editor (the draft's snapshots hold what it replaces, within their limits)."""
    ws = workspace_for(session, user, slug, interview)
    attempt = own_attempt(session, ws, attempt_id)
    try:
        files = {n: t for n, t in attempt.files.items() if n in drafts.editable_files(ws)}
        drafts.save_draft(session=session, ws=ws, files=files, notes={}, base_revision=None, force=True)
    except DojoError as exc:
        return refused(request, session, ws, exc)
    session.commit()
    return RedirectResponse(page_url(request, ws), status_code=303)


@router.get("/challenges/{slug}/download", name="download_files")
def download_files(slug: str, user: CurrentUser, session: SessionDep, interview: InterviewQuery = None) -> Response:
    """The draft's files (and notes) as a zip."""
    ws = workspace_for(session, user, slug, interview)
    draft = drafts.load_draft(session=session, ws=ws)
    session.commit()
    data = history.zip_files(draft.files, draft.notes, ws.package.questions)
    return Response(data, media_type="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{ws.slug}.zip"'})


@router.post("/challenges/{slug}/events", name="workspace_event", status_code=204)
def workspace_event(slug: str, user: CurrentUser, session: SessionDep, body: Annotated[EventBody, Body()],
                    interview: InterviewQuery = None) -> Response:
    """A large paste or time away from the page, reported by the editor (evidence for interviewers)."""
    ws = workspace_for(session, user, slug, interview)
    events.record_event(session=session, ws=ws, kind=body.kind, detail=body.detail)
    session.commit()
    return Response(status_code=204)


@router.post("/interviews/{interview_id}/finish", name="finish_interview")
def finish_interview(request: Request, interview_id: RowIdPath, user: CurrentUser, session: SessionDep) -> Response:
    """The candidate ends the interview early: the workspace turns read-only for good."""
    ws = open_interview_workspace(session=session, user=user, interview_id=interview_id)
    assert ws.interview is not None
    try:
        state.finish_interview(session, ws.interview)
    except DojoError as exc:
        return refused(request, session, ws, exc)
    session.commit()
    return RedirectResponse(str(request.url_for("interview_workspace", interview_id=interview_id)), status_code=303)
