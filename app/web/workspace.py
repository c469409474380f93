"""The candidate workspace pages: a challenge with its brief, files, notes, Results, console, hints, history.

One page serves practice (/challenges/{slug}) and interviews (/interviews/{id}/workspace); every
action under /challenges/{slug}/... takes `?interview=<id>` inside an interview. Fragments are named
blocks of templates/workspace/page.html rendered alone for htmx.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Request
from markupsafe import Markup
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.attempts import numbers
from app.attempts.etag import form_key_of, if_none_match, not_modified, panel_etag, with_validator
from app.attempts.models import Attempt, AttemptKind
from app.auth.deps import CurrentUser, SessionDep
from app.core.db import as_utc, run_read
from app.core.errors import DojoError
from app.core.paths import STATIC_DIR
from app.engine.interfaces import DEFAULT_INTERFACE, interface_label
from app.engine.scratch import FILE_NAME as SCRATCH_FILE
from app.http.params import MAX_ROW_ID, RowIdPath
from app.http.templating import PageContext, render
from app.interviews.live import workspace_hook as live_hook
from app.interviews.live.said import Said
from app.users.models import Role, User
from app.web.invite import lobby_redirect
from app.web.markdown import render_markdown
from app.workspace import drafts, hints, history
from app.workspace.context import Workspace, open_interview_workspace, open_workspace
from app.workspace.hints import HintOffer, ShownHint
from app.workspace.history import HistoryRow
from app.workspace.models import Draft
from app.workspace.results import ResultsView, build_view

router = APIRouter(tags=["pages"], include_in_schema=False)

InterviewQuery = Annotated[int | None, Query(ge=1, le=MAX_ROW_ID)]
PAGE = "workspace/page.html"
EDITOR_BUNDLE = "vendor/codemirror/dojo-editor.min.js"


class AttemptNotFound(DojoError):
    status_code = 404


def workspace_for(session: Session, user: User, slug: str, interview: int | None) -> Workspace:
    return open_workspace(session=session, user=user, slug=slug, interview_id=interview)


def own_attempt(session: Session, ws: Workspace, attempt_id: int) -> Attempt:
    """An attempt of this workspace (404 for anything else: other users, other challenges)."""
    attempt = session.get(Attempt, attempt_id)
    if (attempt is None or attempt.user_id != ws.user.id or attempt.scenario_version_id != ws.version.id
            or attempt.interview_id != ws.interview_id):
        raise AttemptNotFound(f"Attempt {attempt_id} not found in this workspace.")
    return attempt


def is_staff(user: User) -> bool:
    return user.role in (Role.interviewer.value, Role.admin.value)


def latest(attempts: list[Attempt], *kinds: str) -> Attempt | None:
    return next((a for a in attempts if a.kind in kinds), None)


# The attempts each panel shows: Results shows runs and submits, the scratch console scratch runs.
PANEL_KINDS = {"results": (AttemptKind.run.value, AttemptKind.submit.value), "console": (AttemptKind.scratch.value,)}


@dataclass(frozen=True)
class NewestAttempt:
    """The newest attempt of one panel's kinds in a workspace: a tab that knows only older ones says so."""

    id: int
    kind: str
    number: int  # its number in the workspace, which the notice reads ("A newer run, Run 4, …")


def newest_attempt(session: Session, ws: Workspace, panel: str) -> NewestAttempt | None:
    """One indexed row (id and kind only): each poll of a panel carries it."""
    scope = Attempt.interview_id.is_(None) if ws.interview is None else Attempt.interview_id == ws.interview_id
    row = session.execute(
        select(Attempt.id, Attempt.kind).where(
            Attempt.user_id == ws.user.id, Attempt.scenario_version_id == ws.version.id, scope,
            Attempt.kind.in_(PANEL_KINDS[panel]))
        .order_by(Attempt.id.desc()).limit(1)).first()
    if row is None:
        return None
    number = numbers.number_at(session=session, user_id=ws.user.id, version_id=ws.version.id,
                               interview_id=ws.interview_id, attempt_id=row.id)
    return NewestAttempt(id=row.id, kind=row.kind, number=number)


def newest_in(rows: list[HistoryRow], panel: str) -> NewestAttempt | None:
    found = next((r for r in rows if r.attempt.kind in PANEL_KINDS[panel]), None)
    return NewestAttempt(id=found.attempt.id, kind=found.attempt.kind, number=found.number) if found else None


@dataclass(frozen=True)
class WorkspacePage(PageContext):
    """Everything the workspace page shows (also the base for each fragment)."""

    ws: Workspace
    title: str
    interface_label: str
    brief_html: Markup
    draft: Draft | drafts.DraftText  # the stored draft, or the text a refused post carried
    files: tuple[str, ...]
    readonly_files: tuple[str, ...]  # shown read-only, never sent (pipeline-v1's model.py)
    active_file: str
    scratch_file: str
    questions: list[dict[str, str]]
    results: ResultsView | None
    console: ResultsView | None
    newest_results: NewestAttempt | None
    newest_console: NewestAttempt | None
    history: list[HistoryRow]  # History's lines, newest first: numbered, a Run's status its public checks'
    hint_offer: HintOffer | None
    hints_shown: list[ShownHint]
    ends_at: datetime
    time_limit_minutes: int
    time_is_up: bool
    closed_reason: str | None
    notice: str | None
    query: dict[str, int | None]  # what every link of the page carries (?interview=)
    editor_bundle: str | None
    live_messages: tuple[Said, ...] = ()  # an interview's messages from the interviewer
    live_messages_after: int = 0  # where the page's message stream starts
    notice_link: tuple[str, str] | None = None  # (text, path) the notice points to (a grading in progress)


def page_context(request: Request, session: Session, ws: Workspace, *, attempt_id: int | None = None,
                 active_file: str | None = None, notice: str | None = None) -> WorkspacePage:
    """Everything the workspace page shows (also the base for each fragment)."""
    draft = drafts.load_draft(session=session, ws=ws)
    attempts = history.attempts_in(session=session, ws=ws)
    rows = history.history_rows(session=session, attempts=attempts)
    numbered = {r.attempt.id: r.number for r in rows}
    shown = own_attempt(session, ws, attempt_id) if attempt_id else latest(attempts, "run", "submit")
    if shown is not None and shown.kind == AttemptKind.scratch.value:
        shown = latest(attempts, "run", "submit")
    scratch = latest(attempts, AttemptKind.scratch.value)
    files = drafts.editable_files(ws)
    started = as_utc(ws.interview.started_at) if ws.interview and ws.interview.started_at else as_utc(
        draft.created_at)
    return WorkspacePage(
        ws=ws,
        title=ws.version.title,
        interface_label=interface_label(str(ws.version.content.get("interface", DEFAULT_INTERFACE))),
        brief_html=render_markdown(ws.package.brief, top_level=3),
        draft=draft,
        files=files,
        readonly_files=ws.package.readonly,
        active_file=active_file if active_file in files else next((f for f in files if f not in ws.package.readonly),
                                                                    files[0]),
        scratch_file=SCRATCH_FILE,
        questions=ws.package.questions,
        results=view_of(session, shown, ws, numbered),
        console=view_of(session, scratch, ws, numbered),
        newest_results=newest_in(rows, "results"),
        newest_console=newest_in(rows, "console"),
        history=rows,
        hint_offer=hints.next_offer(session=session, ws=ws),
        hints_shown=hints.shown_hints(session=session, ws=ws),
        ends_at=ws.deadline or (started + ws.time_limit),
        time_limit_minutes=int(ws.time_limit / timedelta(minutes=1)),
        time_is_up=ws.time_is_up(),
        closed_reason=ws.closed_reason(),
        notice=notice,
        query={"interview": ws.interview_id} if ws.interview else {},
        editor_bundle=EDITOR_BUNDLE if (STATIC_DIR / EDITOR_BUNDLE).is_file() else None,
        live_messages=live_hook.messages_for(session, ws),
        live_messages_after=live_hook.messages_after(session, ws),
    )


def view_of(session: Session, attempt: Attempt | None, ws: Workspace,
            numbered: dict[int, int] | None = None) -> ResultsView | None:
    """The attempt's panel; `numbered` (attempt id -> number) saves counting when History already did."""
    if attempt is None:
        return None
    return build_view(session=session, attempt=attempt, staff=is_staff(ws.user),
                      number=(numbered or {}).get(attempt.id))


@router.get("/challenges/{slug}", name="challenge_page")
def challenge_page(request: Request, slug: str, user: CurrentUser, session: SessionDep,
                   interview: InterviewQuery = None, attempt: InterviewQuery = None,
                   file: str | None = None) -> Response:
    """The workspace for practice, or (with ?interview=) inside one of the user's interviews."""
    if interview is not None and (lobby := lobby_redirect(request, session, user, interview)) is not None:
        return lobby  # accepted but not started: the lobby first, where Start starts the clock
    ws = open_workspace(session=session, user=user, slug=slug, interview_id=interview, start_clock=True)
    context = page_context(request, session, ws, attempt_id=attempt, active_file=file)
    session.commit()  # the first visit creates the draft (and starts an interview's clock)
    return render(request, PAGE, context)


@router.get("/interviews/{interview_id}/workspace", name="interview_workspace")
def interview_workspace(request: Request, interview_id: RowIdPath, user: CurrentUser, session: SessionDep,
                        attempt: InterviewQuery = None, file: str | None = None) -> Response:
    """The interview's challenge, on the interview's clock (started in the lobby, with Start)."""
    if (lobby := lobby_redirect(request, session, user, interview_id)) is not None:
        return lobby
    ws = open_interview_workspace(session=session, user=user, interview_id=interview_id)
    context = page_context(request, session, ws, attempt_id=attempt, active_file=file)
    session.commit()
    return render(request, PAGE, context)


@router.get("/challenges/{slug}/attempts/{attempt_id}/panel", name="attempt_panel")
async def attempt_panel(request: Request, slug: str, attempt_id: RowIdPath, user: CurrentUser, session: SessionDep,
                        interview: InterviewQuery = None) -> Response:
    """The Results (or console) fragment of one attempt; the page's script polls it while the attempt waits or
    runs, or while its tips are still coming (a read: on SQLite it makes no trip to a worker thread, see run_read)."""
    return await run_read(session, _panel, request, slug, attempt_id, user, session, interview)


def _panel(request: Request, slug: str, attempt_id: int, user: User, session: Session,
           interview: int | None) -> Response:  # fmt: skip
    """304 without rendering when the poll's If-None-Match still names what the panel shows. The ETag is
    worked out first: a grading step stored meanwhile makes the next poll fetch again, never miss it."""
    etag = panel_etag(session, user=user, slug=slug, attempt_id=attempt_id, interview_id=interview,
                      form_key=form_key_of(request))
    if etag is not None and if_none_match(request, etag):
        return not_modified(etag)
    ws = workspace_for(session, user, slug, interview)
    attempt = own_attempt(session, ws, attempt_id)
    return with_validator(render_panel(request, session, ws, attempt, refresh_history=None), etag)


def render_panel(request: Request, session: Session, ws: Workspace, attempt: Attempt, *,
                 refresh_history: bool | None) -> Response:
    """The Results (or console) fragment of `attempt`, with History and the hint on offer swapped in out of
    band when they change: a new or withdrawn attempt (True), or, when None, once the attempt has finished."""
    block = "console" if attempt.kind == AttemptKind.scratch.value else "results"
    view = view_of(session, attempt, ws)
    context: dict[str, object] = {"ws": ws, "query": {"interview": ws.interview_id} if ws.interview else {},
                               block: view, f"newest_{block}": newest_attempt(session, ws, block),
                               "scratch_file": SCRATCH_FILE}
    if refresh_history is None:
        refresh_history = view is not None and not view.in_flight
    if refresh_history:
        attempts = history.attempts_in(session=session, ws=ws)
        context.update(refresh_history=True, history=history.history_rows(session=session, attempts=attempts),
                       hint_offer=hints.next_offer(session=session, ws=ws),
                       hints_shown=hints.shown_hints(session=session, ws=ws), time_is_up=ws.time_is_up())
    return render(request, PAGE, context, block=f"{block}_body")


@router.get("/challenges/{slug}/attempts/{attempt_id}/diff", name="attempt_diff")
def attempt_diff(request: Request, slug: str, attempt_id: RowIdPath, user: CurrentUser, session: SessionDep,
                 interview: InterviewQuery = None, against: str = "previous") -> Response:
    """A side-by-side diff of an attempt's files against the previous attempt or the starter."""
    ws = workspace_for(session, user, slug, interview)
    attempt = own_attempt(session, ws, attempt_id)
    previous = history.previous_attempt(session=session, ws=ws, attempt=attempt)
    shown = history.diff_heading(session=session, attempt=attempt, previous=previous)
    if against == "previous" and shown.previous is not None:
        base, base_label = shown.previous.attempt.files, shown.previous.name
    else:
        against, base, base_label = "starter", drafts.starter_files(ws), "the starter"
    names = tuple(n for n in drafts.editable_files(ws) if n in attempt.files or n in base)
    context = {"ws": ws, "attempt": attempt, "shown": shown, "against": against, "base_label": base_label,
               "diffs": history.diff_files(base, attempt.files, names),
               "query": {"interview": ws.interview_id} if ws.interview else {}, "title": ws.version.title}
    return render(request, "workspace/diff.html", context)


class DraftState(BaseModel):
    """GET /challenges/{slug}/draft: the latest saved draft."""

    revision: int
    files: dict[str, str]
    notes: dict[str, str]
    updated_at: str


@router.get("/challenges/{slug}/draft", name="draft_state")
def draft_state(slug: str, user: CurrentUser, session: SessionDep, interview: InterviewQuery = None) -> DraftState:
    """The latest saved draft (a tab that fell behind loads it)."""
    ws = workspace_for(session, user, slug, interview)
    draft = drafts.load_draft(session=session, ws=ws)
    session.commit()
    return DraftState(revision=draft.revision, files=draft.files, notes=draft.notes,
                      updated_at=as_utc(draft.updated_at).isoformat())
