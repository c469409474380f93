"""Route dependencies of the interviews domain: staff only, and everyone else is told "not found"."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from app.auth.deps import CurrentUser
from app.interviews.access import STAFF
from app.interviews.errors import InterviewNotFound
from app.users.models import User


async def reviewer_user(user: CurrentUser) -> User:  # pure: no worker-thread trip
    """Interviewers and admins; candidates get 404 so the review pages and API reveal nothing to them."""
    if user.role not in STAFF:
        raise InterviewNotFound("Not found.")
    return user


ReviewerUser = Annotated[User, Depends(reviewer_user)]
