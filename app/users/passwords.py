"""The rule every new password meets (sign-up, invites, password change, `dojo create-user`, the first admin).

Length alone lets `password`, `aaaaaaaa` and `12345678` through; the strength estimate refuses what
an attacker's dictionary and pattern rules would guess early, and says why and what would do.
"""

from __future__ import annotations

from app.core.strength import estimate

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 256
# zxcvbn's score 3, "safely unguessable": about 10^8 guesses, out of reach of online guessing and
# costly offline against Argon2.
MIN_SCORE = 3
WHAT_WOULD_DO = "A phrase of three or four unrelated words, or 12 or more random characters, would do."


def password_problem(password: str, *, email: str = "") -> str | None:
    """Why this password is refused, as a message to show; None when it is acceptable."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"Password must be at least {MIN_PASSWORD_LENGTH} characters. {WHAT_WOULD_DO}"
    if len(password) > MAX_PASSWORD_LENGTH:
        return f"Password must be at most {MAX_PASSWORD_LENGTH} characters."
    local_part = email.partition("@")[0]
    guess = estimate(password, related=(email, local_part))
    if guess.score >= MIN_SCORE:
        return None
    why = guess.warning or "It follows a pattern or uses words that password guessers try early."
    return f"This password is too easy to guess. {_sentence(why)} {WHAT_WOULD_DO}"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."
