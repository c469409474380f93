"""Creating and finding users."""

from __future__ import annotations

import re
import secrets
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auth import revocation
from app.core.security import hash_password, verify_password
from app.users.models import Role, User
from app.users.passwords import password_problem

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class UserError(ValueError):
    """A user could not be created or changed; the message is safe to show."""


class WrongPassword(UserError):
    """The current password given to confirm a change is not the account's (a guess, as far as throttling goes)."""


def normalise_email(email: str) -> str:
    return email.strip().lower()


def validate_password(password: str, *, email: str = "") -> None:
    """Refuse a new password that is too short, too long or too easy to guess (the message says why)."""
    problem = password_problem(password, email=email)
    if problem:
        raise UserError(problem)


def get_by_email(*, session: Session, email: str) -> User | None:
    return session.scalar(select(User).where(User.email == normalise_email(email)))


def create_user(*, session: Session, email: str, password: str | None, role: str, display_name: str = "") -> User:
    """Add a user (flushed, not committed); password None leaves it to be set from an invite."""
    email = normalise_email(email)
    if not EMAIL_RE.match(email) or len(email) > 254:
        raise UserError("Enter a valid email address.")
    if role not in {r.value for r in Role}:
        raise UserError(f"Unknown role {role!r}; use candidate, interviewer or admin.")
    if get_by_email(session=session, email=email) is not None:
        raise UserError(f"A user with email {email} already exists.")
    if password is not None:
        validate_password(password, email=email)
    user = User(
        email=email,
        role=role,
        display_name=display_name[:120],
        password_hash=hash_password(password) if password is not None else None,
    )
    session.add(user)
    session.flush()
    return user


def ensure_first_admin(*, session: Session, email: str, credentials_file: Path) -> bool:
    """Create an admin with a random password when there is none; keep the credentials in a 0600 file."""
    if session.scalar(select(User.id).where(User.role == Role.admin.value).limit(1)) is not None:
        return False
    password = secrets.token_urlsafe(12)
    create_user(session=session, email=email, password=password, role=Role.admin.value, display_name="Admin")
    credentials_file.write_text(f"email: {email}\npassword: {password}\n")
    credentials_file.chmod(0o600)
    return True


def list_users(*, session: Session) -> list[User]:
    """Every user, admins first, then by email."""
    order = {Role.admin.value: 0, Role.interviewer.value: 1, Role.candidate.value: 2}
    users = list(session.scalars(select(User).order_by(User.email)))
    return sorted(users, key=lambda user: (order.get(user.role, 3), user.email))


def set_active(*, session: Session, user: User, actor: User, active: bool) -> User:
    """Activate or deactivate an account (flushed); an admin cannot deactivate themselves."""
    if user.id == actor.id and not active:
        raise UserError("You cannot deactivate your own account.")
    user.is_active = active
    session.flush()
    if not active:
        # Revoked for good: reactivating the account later must not bring old cookies or tokens back.
        revocation.revoke_all(session=session, user=user)
    return user


def change_password(*, session: Session, user: User, current: str, new: str, confirm: str) -> User:
    """Set a new password after checking the current one; every session and API token ends (flushed)."""
    if not verify_password(current, user.password_hash):
        raise WrongPassword("The current password is not correct.")
    if new != confirm:
        raise UserError("The two new passwords do not match.")
    validate_password(new, email=user.email)
    user.password_hash = hash_password(new)
    session.flush()
    revocation.revoke_all(session=session, user=user)
    return user


def set_role(*, session: Session, user: User, actor: User, role: str) -> User:
    """Change an account's role (flushed); an admin cannot remove their own admin role."""
    if role not in {r.value for r in Role}:
        raise UserError(f"Unknown role {role!r}; use candidate, interviewer or admin.")
    if user.id == actor.id and role != Role.admin.value:
        raise UserError("You cannot remove your own admin role.")
    user.role = role
    session.flush()
    return user
