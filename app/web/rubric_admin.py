"""Admins edit the default review rubric: criteria with a description for each level 1 to 4."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.auth.deps import AdminUser, SessionDep
from app.http.templating import render
from app.interviews import reviews
from app.interviews.errors import InterviewError
from app.interviews.rubric import DEFAULT_RUBRIC, LEVELS, MAX_CRITERIA, Criterion, parse

router = APIRouter(prefix="/admin/rubric", tags=["pages"], include_in_schema=False)


@dataclass(frozen=True)
class CriterionRow:
    """One criterion of the form as typed (or as stored): id, title, a description per level."""

    id: str
    title: str
    levels: list[str]

    def stored(self) -> dict[str, str | list[str]]:
        """The rubric's stored shape, which reviews.save_rubric parses and checks."""
        return {"id": self.id, "title": self.title, "levels": self.levels}


def _rows(criteria: list[Criterion] | list[CriterionRow]) -> list[CriterionRow]:
    """Form rows: the criteria plus one blank row to add a new one."""
    rows = [c if isinstance(c, CriterionRow) else CriterionRow(c.id, c.title, list(c.levels)) for c in criteria]
    return [*rows, CriterionRow("", "", ["", "", "", ""])] if len(rows) < MAX_CRITERIA else rows


def criteria_from_form(form: Any) -> list[CriterionRow]:
    """The submitted rows that have a title and are not marked for removal (a blank row is ignored)."""
    out = []
    for n in range(MAX_CRITERIA + 1):
        title = str(form.get(f"title_{n}", "")).strip()
        levels = [str(form.get(f"level_{n}_{level}", "")) for level in LEVELS]
        if form.get(f"remove_{n}") or (not title and not any(text.strip() for text in levels)):
            continue
        out.append(CriterionRow(str(form.get(f"id_{n}", "")), title, levels))
    return out


@router.get("", name="rubric_page")
def rubric_page(request: Request, user: AdminUser, session: SessionDep) -> Response:
    """The default rubric as an editable form."""
    return render(request, "review/admin_rubric.html", {"rows": _rows(reviews.rubric(session=session))})


@router.post("", name="save_rubric")
async def save_rubric(request: Request, user: AdminUser, session: SessionDep) -> Response:
    """Store the edited rubric (or restore the default); refused input comes back with the error."""
    form = await request.form()
    submitted = (_rows(parse(DEFAULT_RUBRIC))[:len(DEFAULT_RUBRIC)] if form.get("restore_default")
                 else criteria_from_form(form))
    try:
        saved = reviews.save_rubric(session=session, criteria=[row.stored() for row in submitted], by=user)
    except InterviewError as exc:
        session.rollback()
        return render(request, "review/admin_rubric.html", {"rows": _rows(submitted), "error": str(exc)},
                      status_code=exc.status_code)
    session.commit()
    return render(request, "review/admin_rubric.html", {"rows": _rows(saved), "saved": True})
