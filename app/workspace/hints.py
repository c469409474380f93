"""Hints: the next hint of the first planted bug still unfixed at the last submit, at a known cost.

Each bug has three hints, vague to specific; each level revealed costs HINT_PENALTY of that bug's
share of the score. The candidate sees the cost before taking a hint, and never a bug's id.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.attempts.models import Attempt, AttemptKind
from app.attempts.package_info import package_of
from app.core.db import utcnow
from app.core.errors import DojoError
from app.engine.package import ScenarioPackage
from app.grading.result import GradeResult
from app.grading.scoring import HINT_PENALTY
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


def _unfixed_at_last_submit(*, session: Session, ws: Workspace, bug_ids: list[str]) -> list[str]:
    last = session.scalar(
        select(Attempt.result).where(
            Attempt.user_id == ws.user.id, Attempt.scenario_version_id == ws.version.id,
            Attempt.interview_id.is_(None) if ws.interview is None else Attempt.interview_id == ws.interview_id,
            Attempt.kind == AttemptKind.submit.value, Attempt.result.is_not(None))
        .order_by(Attempt.id.desc()).limit(1))
    result = GradeResult.from_stored(last)
    if result is None or not result.bugs:
        return bug_ids
    fixed = {b.id for b in result.bugs if b.fixed}
    return [bug_id for bug_id in bug_ids if bug_id not in fixed]


def next_offer(*, session: Session, ws: Workspace) -> HintOffer | None:
    """The next hint to offer, or None when every unfixed bug's hints are all revealed."""
    package = _package(ws)
    bug_ids = [bug.id for bug in package.bugs]
    used = levels_used(session=session, user_id=ws.user.id, version_id=ws.version.id, scope=ws.scope)
    share = 100.0 / len(bug_ids) if bug_ids else 0.0
    for bug_id in _unfixed_at_last_submit(session=session, ws=ws, bug_ids=bug_ids):
        level = used.get(bug_id, 0) + 1
        if level <= len(package.bug(bug_id).hints):
            return HintOffer(bug_number=bug_ids.index(bug_id) + 1, level=level,
                             cost_points=round(share * HINT_PENALTY, 2))
    return None


def reveal(*, session: Session, ws: Workspace, offer_key: str) -> ShownHint:
    """Take the offered hint (recorded with its time); a stale offer is refused with the new one named."""
    ws.refuse_after_deadline()
    offer = next_offer(session=session, ws=ws)
    if offer is None:
        raise HintUnavailable("There are no more hints for the bugs still open at your last submit.")
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
