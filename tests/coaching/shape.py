"""The suggestion-block shape every tip must have, whoever wrote it."""

from __future__ import annotations

from app.coaching.guard import LeakGuard
from app.coaching.tip import Tip

FRAMING_OPENERS = ("Frame your", "Structure your", "Start by")


def assert_block_shape(tip: Tip, guard: LeakGuard) -> None:
    assert tip.framing.startswith(FRAMING_OPENERS), tip.framing
    assert tip.pro_tip and not tip.pro_tip.lower().startswith("pro tip"), tip.pro_tip
    assert 3 <= len(tip.steps) <= 5, tip.steps
    assert len(set(tip.steps)) == len(tip.steps), tip.steps
    assert tip.rules, tip
    assert guard.tip_leaks(*tip.texts()) == [], tip
    assert "guard.redacted" not in tip.rules, tip  # the rules themselves never come close to a fix
