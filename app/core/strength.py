"""How hard a secret is to guess: zxcvbn's estimate, with its dictionaries of common passwords and words.

One estimator for people's passwords (app/users/passwords.py) and the production SECRET_KEY
(app/core/settings.py), so "too easy to guess" means the same thing everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from zxcvbn import zxcvbn

# zxcvbn refuses longer input (its matching grows quadratically): a longer secret is judged by its
# first 72 characters, which only ever underestimates it.
ESTIMATED_CHARS = 72


@dataclass(frozen=True)
class Estimate:
    """zxcvbn's verdict: score 0-4, log10 of the guesses an attacker needs, and its advice."""

    score: int
    guesses_log10: float
    warning: str
    suggestions: tuple[str, ...]


def estimate(secret: str, *, related: Iterable[str] = ()) -> Estimate:
    """The guessability of `secret`; `related` words (an email, a name) count as known to the attacker."""
    result = zxcvbn(secret[:ESTIMATED_CHARS], user_inputs=[word for word in related if word])
    feedback = result.get("feedback") or {}
    return Estimate(score=int(result["score"]), guesses_log10=float(result["guesses_log10"]),
                    warning=str(feedback.get("warning") or ""),
                    suggestions=tuple(str(s) for s in feedback.get("suggestions") or ()))
