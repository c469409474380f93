"""Candidates rate the tips of their own attempts; admins read the ratings aggregated per rule."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.attempts import service as attempts_service
from app.attempts.models import Attempt
from app.coaching.models import CoachingTip, TipRating
from app.coaching.rules import RULES, describe
from app.core.db import utcnow
from app.users.models import User


class RatingRefused(Exception):
    """The tip cannot be rated by this user; `detail` is safe to show and `status_code` is 4xx."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail


def ratable_tip(*, session: Session, user: User, tip_id: int) -> tuple[CoachingTip, Attempt]:
    """The tip and its attempt if this user may rate it: only the candidate whose attempt it is."""
    tip = session.get(CoachingTip, tip_id)
    attempt = attempts_service.visible_attempt(session=session, attempt_id=tip.attempt_id, user=user) if tip else None
    if tip is None or attempt is None:
        raise RatingRefused(404, f"Tip {tip_id} not found.")
    if attempt.user_id != user.id:
        raise RatingRefused(403, "Only the candidate who made the attempt can rate its tips.")
    return tip, attempt


def rate_tip(*, session: Session, user: User, tip_id: int, helpful: bool) -> TipRating:
    """Store (or change) the user's rating of a tip they may rate; flushed, not committed."""
    tip, _attempt = ratable_tip(session=session, user=user, tip_id=tip_id)
    return store_rating(session=session, user=user, tip=tip, helpful=helpful)


def store_rating(*, session: Session, user: User, tip: CoachingTip, helpful: bool) -> TipRating:
    """Insert or update the one rating of a tip (the caller checked the user may rate it)."""
    rating = session.scalar(select(TipRating).where(TipRating.tip_id == tip.id))
    if rating is None:
        rating = TipRating(tip_id=tip.id, user_id=user.id, helpful=helpful, rules=list(tip.rules or []),
                           source=tip.source)
        session.add(rating)
    rating.helpful = helpful
    rating.updated_at = utcnow()
    try:
        session.flush()
    except IntegrityError:  # the same tip rated from two tabs at the same moment
        session.rollback()
        raise RatingRefused(409, "This tip was just rated from elsewhere; reload and try again.") from None
    return rating


@dataclass(frozen=True)
class RuleRatings:
    rule: str
    description: str
    tips: int  # tips written with this rule (current ones)
    helpful: int
    not_helpful: int

    @property
    def rated(self) -> int:
        return self.helpful + self.not_helpful

    @property
    def helpful_share(self) -> float | None:
        return self.helpful / self.rated if self.rated else None


def ratings_by_rule(*, session: Session) -> list[RuleRatings]:
    """Every known or used rule with its tip count and ratings, the least helpful rated rules first."""
    written: Counter[str] = Counter()
    for rules in session.scalars(select(CoachingTip.rules)):
        written.update(set(rules or []))
    helpful: Counter[str] = Counter()
    not_helpful: Counter[str] = Counter()
    for rules, verdict in session.execute(select(TipRating.rules, TipRating.helpful)):
        (helpful if verdict else not_helpful).update(set(rules or []))
    names = list(RULES) + sorted((set(written) | set(helpful) | set(not_helpful)) - set(RULES))
    rows = [RuleRatings(rule=name, description=describe(name), tips=written[name], helpful=helpful[name],
                        not_helpful=not_helpful[name]) for name in names]
    rated = sorted((r for r in rows if r.rated), key=lambda r: (r.helpful_share or 0.0, -r.rated, r.rule))
    return rated + [r for r in rows if not r.rated and r.tips] + [r for r in rows if not r.rated and not r.tips]
