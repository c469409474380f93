"""What the editor reports about how the candidate worked: large pastes and time away from the page.

Evidence for the interviewer, never a verdict. The browser sends these, so they are reduced to a
fixed shape and capped per workspace: a script cannot fill the database through them.
"""

from __future__ import annotations

import hashlib
import keyword
import re
from collections.abc import Mapping

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.errors import DojoError
from app.workspace.context import Workspace
from app.workspace.models import WorkspaceEvent

MAX_EVENTS_PER_WORKSPACE = 2000
# Pastes shorter than this are ordinary editing (a copied identifier), not worth a record.
LARGE_PASTE_CHARS = 200


# A paste's text is never stored: only fingerprints of its pieces (each line, each comment, each long
# name), which the "text only the solution has" signal compares with the solution's own pieces.
MAX_PASTE_TEXT = 200_000
MAX_PIECES = 4000
_NAME = re.compile(r"[A-Za-z_]\w{5,}")
_SPACE = re.compile(r"\s+")


def normalise_piece(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def piece_hash(text: str) -> str:
    return hashlib.blake2b(normalise_piece(text).encode(), digest_size=6).hexdigest()


def paste_pieces(text: str) -> list[str]:
    """Fingerprints of a pasted text's lines, comments (after '#') and names of six characters or more."""
    pieces: set[str] = set()
    for line in text.splitlines():
        if line.strip():
            pieces.add(line)
        if "#" in line:
            pieces.add(line.split("#", 1)[1].lstrip("#"))
        pieces.update(n for n in _NAME.findall(line) if not keyword.iskeyword(n))
    return sorted({piece_hash(p) for p in pieces if normalise_piece(p)})[:MAX_PIECES]


class EventRejected(DojoError):
    status_code = 422


def _int(value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise EventRejected("Event details must be small non-negative numbers.")
    return int(value)


def clean_detail(ws: Workspace, kind: str, detail: Mapping[str, object]) -> dict[str, str | int | float] | None:
    """The stored shape of one event, or None when it is not worth keeping (what the browser sent is
    untrusted: each value is checked before it is kept)."""
    if kind == "paste":
        name = detail.get("file")
        if not isinstance(name, str) or name not in (*ws.package.editable, "scratch.py"):
            raise EventRejected("A paste event must name one of the workspace's files.")
        chars = _int(detail.get("chars"), 0, 10_000_000)
        if chars < LARGE_PASTE_CHARS:
            return None
        text = detail.get("text")
        if text is not None and not isinstance(text, str):
            raise EventRejected("A paste event's text must be a string.")
        kept: dict[str, str | int | float] = {"file": name, "chars": chars,
                                               "lines": _int(detail.get("lines"), 0, 1_000_000)}
        if text:
            kept["pieces"] = " ".join(paste_pieces(text[:MAX_PASTE_TEXT]))
        return kept
    if kind == "focus_lost":
        return {"seconds": round(float(_int(detail.get("seconds"), 0, 86_400)), 1)}
    raise EventRejected(f"Unknown event kind {kind[:40]!r}: use paste or focus_lost.")


def record_event(*, session: Session, ws: Workspace, kind: str, detail: Mapping[str, object]) -> WorkspaceEvent | None:
    """Store one editor event (flushed, not committed); ignored beyond the per-workspace cap."""
    clean = clean_detail(ws, kind, detail)
    if clean is None:
        return None
    count = session.scalar(select(func.count(WorkspaceEvent.id)).where(
        WorkspaceEvent.user_id == ws.user.id, WorkspaceEvent.scenario_version_id == ws.version.id,
        WorkspaceEvent.scope == ws.scope)) or 0
    if count >= MAX_EVENTS_PER_WORKSPACE:
        return None
    event = WorkspaceEvent(user_id=ws.user.id, scenario_version_id=ws.version.id, interview_id=ws.interview_id,
                           scope=ws.scope, kind=kind, detail=clean)
    session.add(event)
    session.flush()
    return event


def record_reset(*, session: Session, ws: Workspace, name: str) -> None:
    session.add(WorkspaceEvent(user_id=ws.user.id, scenario_version_id=ws.version.id, interview_id=ws.interview_id,
                               scope=ws.scope, kind="reset_file", detail={"file": name}))
    session.flush()
