"""All candidates of one challenge version side by side, sortable by any column (links, no script needed)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.auth.deps import SessionDep
from app.http.params import RowIdPath
from app.http.templating import render
from app.interviews import access
from app.interviews.deps import ReviewerUser
from app.interviews.errors import InterviewNotFound
from app.interviews.models import Interview
from app.interviews.reviews import DECISION_LABELS
from app.interviews.summary import InterviewSummary, summarise
from app.scenarios.models import ScenarioVersion

router = APIRouter(prefix="/interviewer/versions", tags=["pages"], include_in_schema=False)

SortKey = Literal["candidate", "state", "score", "time", "attempts", "hints", "decision"]
DECISION_ORDER = {value: n for n, value in enumerate(DECISION_LABELS)}
# Points are the one unit a score is shown in (app/attempts/points.py); the sort key keeps its name for old links.
COLUMNS: list[tuple[str, str]] = [("candidate", "Candidate"), ("state", "State"), ("score", "Points (of 100)"),
                                  ("time", "Time used"), ("attempts", "Attempts"), ("hints", "Hints"),
                                  ("decision", "Decision")]


def _decision_rank(summary: InterviewSummary) -> float:
    ranks = [DECISION_ORDER[d] for d in summary.decisions if d in DECISION_ORDER]
    return sum(ranks) / len(ranks) if ranks else -1.0


def sort_key(key: str) -> Any:
    """The value a column sorts by; missing values sort first ascending, last descending."""
    def missing_low(value: float | None) -> float:
        return -1.0 if value is None else value
    return {
        "candidate": lambda s: s.record.interview.candidate_email,
        "state": lambda s: s.state.value,
        "score": lambda s: missing_low(s.score),
        "time": lambda s: missing_low(s.minutes_used),
        "attempts": lambda s: s.attempt_count,
        "hints": lambda s: s.hints,
        "decision": _decision_rank,
    }[key]


@router.get("/{version_id}/compare", name="compare_version")
def compare_version(
    request: Request, version_id: RowIdPath, user: ReviewerUser, session: SessionDep,
    sort: Annotated[SortKey, Query()] = "score",
    direction: Annotated[Literal["asc", "desc"], Query(alias="dir")] = "desc",
) -> Response:
    """The interviews this user may see on one version, in a table sorted by the chosen column."""
    version = session.get(ScenarioVersion, version_id)
    if version is None:
        raise InterviewNotFound(f"Challenge version {version_id} not found.")
    interviews = list(session.scalars(access.visible_query(user).where(Interview.scenario_version_id == version_id)
                                      .limit(access.LIST_LIMIT)))
    rows = sorted(summarise(session=session, interviews=interviews, viewer=user), key=sort_key(sort),
                  reverse=direction == "desc")
    return render(request, "review/compare.html", {
        "version": version, "rows": rows, "sort": sort, "direction": direction, "columns": COLUMNS,
        "decision_labels": DECISION_LABELS,
    })
