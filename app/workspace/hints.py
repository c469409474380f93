"""Hints: the next hint of the first planted bug still unfixed at the last graded submit, at a known cost.

Each bug has three hints, vague to specific; each level revealed costs HINT_PENALTY of that bug's
share of the score. The candidate sees the cost before taking a hint (and confirms it), and never a bug's id.
A bug the latest graded submit fixed is never offered; while the version's bug x test matrix is still being
computed and that submit's per-bug verdicts are provisional, no hint is offered at all (the button says why),
since any of them might be for a bug already fixed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.attempts.models import Attempt, AttemptKind, AttemptStatus
from app.attempts.package_info import package_of
from app.core.db import utcnow
from app.core.errors import DojoError
from app.engine.package import ScenarioPackage
from app.grading.result import GradeResult
from app.grading.scoring import HINT_PENALTY
from app.scenarios.reference import stored_report_is_complete
from app.workspace.models import HintReveal

if TYPE_CHECKING:
    from app.workspace.context import Workspace


class HintUnavailable(DojoError):
    status_code = 409


@dataclass(frozen=True)
class HintOffer:
    """The hint that "Get a hint" would reveal, and what it costs."""

    bug_number: int  # 1-based position among the planted bugs (never the id)
    level: int  # 1..3
    cost_points: float  # out of 100
    # The version's per-bug verdicts are still being computed and the last graded submit was judged before
    # them: the offer waits (the button says so) rather than risk charging for a bug already fixed.
    waiting_for_matrix: bool = False

    @property
    def key(self) -> str:
        """What the confirm form posts back, so a stale offer is not taken by surprise."""
        return f"{self.bug_number}.{self.level}"


@dataclass(frozen=True)
class ShownHint:
    bug_number: int
    level: int
    text: str
    revealed_at: datetime


def _package(ws: Workspace) -> ScenarioPackage:
    return package_of(ws.version)


def levels_used(*, session: Session, user_id: int, version_id: int, scope: str) -> dict[str, int]:
    """bug id -> highest hint level revealed in one workspace (what its attempts are scored with)."""
    rows = session.execute(
        select(HintReveal.bug_id, func.max(HintReveal.level))
        .where(HintReveal.user_id == user_id, HintReveal.scenario_version_id == version_id,
               HintReveal.scope == scope)
        .group_by(HintReveal.bug_id)
    ).all()
    return {bug_id: int(level) for bug_id, level in rows}


def _last_graded_submit(*, session: Session, ws: Workspace) -> GradeResult | None:
    """The result of the latest Submit that was graded (passed or failed: an error judged no bug)."""
    last = session.scalar(
        select(Attempt.result).where(
            Attempt.user_id == ws.user.id, Attempt.scenario_version_id == ws.version.id,
            Attempt.interview_id.is_(None) if ws.interview is None else Attempt.interview_id == ws.interview_id,
            Attempt.kind == AttemptKind.submit.value, Attempt.result.is_not(None),
            Attempt.status.in_((AttemptStatus.passed.value, AttemptStatus.failed.value)))
        .order_by(Attempt.id.desc()).limit(1))
    return GradeResult.from_stored(last)


def _open_bugs(result: GradeResult | None, bug_ids: list[str]) -> list[str]:
    """The bugs a hint may be for, in the package's order: never one the latest graded submit fixed; the ones
    it judged still there before those it could not judge."""
    if result is None or not result.bugs:
        return bug_ids
    verdicts = {b.id: b for b in result.bugs}
    fixed = {b.id for b in result.bugs if b.fixed}
    open_ids = [bug_id for bug_id in bug_ids if bug_id not in fixed]
    return sorted(open_ids, key=lambda bug_id: bug_id in verdicts and not verdicts[bug_id].verifiable)


def matrix_pending(ws: Workspace) -> bool:
    """Whether the version's bug x test matrix (what per-bug verdicts come from) is still being computed."""
    return not stored_report_is_complete(ws.version.reference, ws.version.content_hash)


def next_offer(*, session: Session, ws: Workspace) -> HintOffer | None:
    """The next hint to offer, or None when every unfixed bug's hints are all revealed."""
    package = _package(ws)
    bug_ids = [bug.id for bug in package.bugs]
    used = levels_used(session=session, user_id=ws.user.id, version_id=ws.version.id, scope=ws.scope)
    share = 100.0 / len(bug_ids) if bug_ids else 0.0
    last = _last_graded_submit(session=session, ws=ws)
    waiting = last is not None and last.provisional and last.status != "passed" and matrix_pending(ws)
    for bug_id in _open_bugs(last, bug_ids):
        level = used.get(bug_id, 0) + 1
        if level <= len(package.bug(bug_id).hints):
            return HintOffer(bug_number=bug_ids.index(bug_id) + 1, level=level,
                             cost_points=round(share * HINT_PENALTY, 2), waiting_for_matrix=waiting)
    return None


def reveal(*, session: Session, ws: Workspace, offer_key: str) -> ShownHint:
    """Take the offered hint (recorded with its time); a stale offer is refused with the new one named."""
    ws.refuse_after_deadline()
    offer = next_offer(session=session, ws=ws)
    if offer is None:
        raise HintUnavailable("There are no more hints for the bugs still open at your last submit.")
    if offer.waiting_for_matrix:
        raise HintUnavailable("Hints wait until this challenge's per-bug verdicts are computed (a few minutes): "
                              "your last submit may already have fixed the bug a hint would be for.")
    if offer.key != offer_key:
        raise HintUnavailable("The hint on offer changed (a submit finished meanwhile). Look at the new offer "
                              "and its cost, then take it if you still want it.")
    bug = _package(ws).bugs[offer.bug_number - 1]
    row = HintReveal(user_id=ws.user.id, scenario_version_id=ws.version.id, interview_id=ws.interview_id,
                     scope=ws.scope, bug_id=bug.id, level=offer.level, revealed_at=utcnow())
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:  # a double click: the same level was just revealed
        pass
    return ShownHint(bug_number=offer.bug_number, level=offer.level, text=bug.hints[offer.level - 1],
                     revealed_at=row.revealed_at)


def shown_hints(*, session: Session, ws: Workspace) -> list[ShownHint]:
    """Every hint this workspace revealed, in the order they were taken."""
    package = _package(ws)
    numbers = {bug.id: n for n, bug in enumerate(package.bugs, start=1)}
    rows = session.scalars(
        select(HintReveal).where(HintReveal.user_id == ws.user.id, HintReveal.scenario_version_id == ws.version.id,
                                 HintReveal.scope == ws.scope).order_by(HintReveal.revealed_at, HintReveal.id)
    ).all()
    return [ShownHint(bug_number=numbers[r.bug_id], level=r.level, text=package.bug(r.bug_id).hints[r.level - 1],
                      revealed_at=r.revealed_at) for r in rows if r.bug_id in numbers]
