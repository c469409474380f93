"""Password hashing (Argon2) and token hashing; the only place secrets are compared."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
# Verifying against a real hash when the user does not exist keeps login timing the same
# for known and unknown emails, so the response time does not reveal which accounts exist.
_DUMMY_HASH = _hasher.hash("not-a-real-password")


def hash_password(password: str) -> str:
    """An Argon2id hash of the password."""
    return _hasher.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """True when the password matches; spends the same time when there is no hash."""
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def new_token() -> str:
    """A URL-safe random token (API tokens, invite links)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """SHA-256 hex digest under which a token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def same_secret(a: str, b: str) -> bool:
    """Constant-time comparison."""
    return hmac.compare_digest(a.encode(), b.encode())
