"""A workspace's attempts in time order, side-by-side diffs of their files, and the files as a zip."""

from __future__ import annotations

import difflib
import io
import zipfile
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts import numbers
from app.attempts.models import Attempt
from app.attempts.views import verdict_of
from app.grading.result import GradeResult
from app.workspace.context import Workspace

CONTEXT_LINES = 3


@dataclass(frozen=True)
class DiffRow:
    kind: str  # equal | replace | delete | insert | skip
    old_no: int | None = None
    old: str = ""
    new_no: int | None = None
    new: str = ""


@dataclass(frozen=True)
class FileDiff:
    name: str
    rows: list[DiffRow]
    changed: bool


def attempts_in(*, session: Session, ws: Workspace, limit: int = 200) -> list[Attempt]:
    """This workspace's attempts, newest first."""
    scope = Attempt.interview_id.is_(None) if ws.interview is None else Attempt.interview_id == ws.interview_id
    return list(session.scalars(
        select(Attempt).where(Attempt.user_id == ws.user.id, Attempt.scenario_version_id == ws.version.id, scope)
        .order_by(Attempt.id.desc()).limit(limit)))


def shown_statuses(attempts: list[Attempt]) -> dict[int, str]:
    """attempt id -> the status History shows: a Run's is its public checks' (the checks it shows, see
    app.attempts.views.verdict_of), so a Run whose hidden checks fail is not listed as failed. Only failed
    Runs are read back (the others keep their stored status), so the list stays cheap."""
    return {a.id: verdict_of(a, GradeResult.from_stored(a.result))["status"] if a.kind == "run" and a.status == "failed"
            else a.status for a in attempts}


@dataclass(frozen=True)
class HistoryRow:
    """One line of History: the attempt, its number in this workspace and the status it shows."""

    attempt: Attempt
    number: int
    status: str  # a Run's is its public checks' (shown_statuses)

    @property
    def name(self) -> str:
        return numbers.attempt_name(self.attempt.kind, self.number)

    @property
    def public_checks_only(self) -> bool:
        """A graded Run: its status speaks for the public checks alone (History says so beside it)."""
        return self.attempt.kind == "run" and self.status in ("passed", "failed")


def history_rows(*, session: Session, attempts: list[Attempt]) -> list[HistoryRow]:
    """History's lines for attempts_in's list (newest first), numbered as people read them."""
    numbered = numbers.numbers_of(session=session, newest_first=attempts)
    statuses = shown_statuses(attempts)
    return [HistoryRow(attempt=a, number=numbered[a.id], status=statuses[a.id]) for a in attempts]


def previous_attempt(*, session: Session, ws: Workspace, attempt: Attempt) -> Attempt | None:
    """The attempt made just before this one in the same workspace (any kind)."""
    return next((a for a in attempts_in(session=session, ws=ws) if a.id < attempt.id), None)


@dataclass(frozen=True)
class DiffHeading:
    """The diff page's two sides, named as History names them."""

    attempt: HistoryRow
    previous: HistoryRow | None


def diff_heading(*, session: Session, attempt: Attempt, previous: Attempt | None) -> DiffHeading:
    number = numbers.number_of(session=session, attempt=attempt)
    statuses = shown_statuses([attempt, *([previous] if previous else [])])
    return DiffHeading(
        attempt=HistoryRow(attempt=attempt, number=number, status=statuses[attempt.id]),
        # the attempt made just before, in the same workspace: one number lower
        previous=HistoryRow(attempt=previous, number=number - 1, status=statuses[previous.id]) if previous else None)


def diff_file(name: str, old: str, new: str) -> FileDiff:
    """Rows for a two-column diff; long unchanged stretches fold into one 'skip' row."""
    a, b = old.splitlines(), new.splitlines()
    rows: list[DiffRow] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            rows.extend(_folded_equal(a, i1, i2, j1, first=not rows, last=i2 == len(a)))
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            rows.append(DiffRow(kind=tag if (i < i2 and j < j2) or tag != "replace" else
                                ("delete" if i < i2 else "insert"),
                                old_no=i + 1 if i < i2 else None, old=a[i] if i < i2 else "",
                                new_no=j + 1 if j < j2 else None, new=b[j] if j < j2 else ""))
    return FileDiff(name=name, rows=rows, changed=a != b)


def _folded_equal(lines: list[str], i1: int, i2: int, j1: int, *, first: bool, last: bool) -> list[DiffRow]:
    def row(i: int) -> DiffRow:
        return DiffRow(kind="equal", old_no=i + 1, old=lines[i], new_no=j1 + (i - i1) + 1, new=lines[i])

    keep_head = 0 if first else CONTEXT_LINES
    keep_tail = 0 if last else CONTEXT_LINES
    if i2 - i1 <= keep_head + keep_tail + 1:
        return [row(i) for i in range(i1, i2)]
    skipped = i2 - i1 - keep_head - keep_tail
    return [*(row(i) for i in range(i1, i1 + keep_head)),
            DiffRow(kind="skip", old=f"{skipped} unchanged line{'s' if skipped != 1 else ''}"),
            *(row(i) for i in range(i2 - keep_tail, i2))]


def diff_files(old: dict[str, str], new: dict[str, str], names: tuple[str, ...]) -> list[FileDiff]:
    return [diff_file(name, old.get(name, ""), new.get(name, "")) for name in names]


def zip_files(files: dict[str, str], notes: dict[str, str], questions: list[dict[str, str]]) -> bytes:
    """The files as a zip, with the notes as NOTES.md (for working offline or keeping a copy)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(name, files[name])
        answered = [(q["text"], notes.get(q["id"], "")) for q in questions]
        if any(text.strip() for _, text in answered):
            archive.writestr("NOTES.md", "".join(f"## {question}\n\n{text.strip()}\n\n" for question, text in answered))
    return buffer.getvalue()
