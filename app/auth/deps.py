"""FastAPI dependencies: the database session, the current user (cookie or bearer) and roles.

API paths answer 401/403 as JSON; pages send anonymous visitors to sign-in and show a 403 page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy.orm import Session

from app.auth import sessions, tokens
from app.auth.csrf import is_api_path, is_bearer_request
from app.core.db import get_session, run_read
from app.core.settings import get_settings
from app.users.models import Role, User

SessionDep = Annotated[Session, Depends(get_session)]

BAD_TOKEN = "The bearer token is invalid, expired or revoked."
DEACTIVATED = "This account has been deactivated."
NOT_AUTHENTICATED = "Not authenticated: sign in or send a bearer token."
WRONG_ROLE = "Your account does not have access to this page."


class SignInRequired(Exception):
    """An anonymous visitor asked for a page; the error handler redirects to sign-in."""


def _bearer_user(request: Request, session: Session, header: str) -> User:
    token = header.partition(" ")[2].strip()
    if not token:
        raise HTTPException(401, "Use the header 'Authorization: Bearer <token>'.", {"WWW-Authenticate": "Bearer"})
    found = tokens.token_owner(session=session, token=token)
    if found is None:
        raise HTTPException(401, BAD_TOKEN, {"WWW-Authenticate": "Bearer"})
    token_row, user = found
    if not user.is_active:
        raise HTTPException(403, DEACTIVATED)
    request.state.api_token = token_row
    return user


def _signed_in_user(request: Request, session: Session) -> User | None:
    if is_bearer_request(request):
        user: User | None = _bearer_user(request, session, request.headers["authorization"])
    else:
        uid = sessions.session_user_id(request, max_age_seconds=get_settings().session_max_age_seconds)
        # Checked on every request, so deactivation, a password change or a sign-out anywhere ends
        # the session at once, in every web process.
        user = sessions.session_user(request, session, uid) if uid is not None else None
        if uid is not None and user is None:
            sessions.forget_session(request)
    # End the read transaction, which gives the connection back to the pool (the user stays loaded):
    # a sync endpoint runs on a worker thread, and a request holding a connection while it waits
    # for one could leave every worker thread waiting for a connection that only such requests hold.
    session.commit()
    return user


async def optional_user(request: Request, session: SessionDep) -> User | None:
    """The signed-in user, or None; a bad bearer token is an error, never anonymous.

    Other Authorization schemes are ignored (a proxy's Basic auth passes through to the app).
    """
    user = await run_read(session, _signed_in_user, request, session)
    request.state.user = user
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]


# The checks below are async only because they are pure: FastAPI runs a plain function on a worker
# thread, and each such trip costs more than the check under load.
async def current_user(request: Request, user: OptionalUser) -> User:
    """The signed-in user; 401 for the API, a redirect to sign-in for pages."""
    if user is None:
        if is_api_path(request.url.path):
            raise HTTPException(401, NOT_AUTHENTICATED, {"WWW-Authenticate": "Bearer"})
        raise SignInRequired()
    return user


CurrentUser = Annotated[User, Depends(current_user)]


def require_role(*roles: Role | str) -> Callable[[User], Awaitable[User]]:
    """A dependency that lets only the given roles through (403 otherwise)."""
    allowed = frozenset(str(role) for role in roles)

    async def _check(user: CurrentUser) -> User:
        if user.role not in allowed:
            raise HTTPException(403, WRONG_ROLE)
        return user

    _check.__name__ = f"require_{'_or_'.join(sorted(allowed))}"
    return _check


AdminUser = Annotated[User, Depends(require_role(Role.admin))]
InterviewerUser = Annotated[User, Depends(require_role(Role.interviewer, Role.admin))]
CandidateUser = Annotated[User, Depends(require_role(Role.candidate))]
