"""Checking an email and password, shared by the sign-in form and the token endpoint."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from sqlalchemy.orm import Session

from app.auth.rate_limit import LoginLimiter
from app.core.errors import DojoError
from app.core.security import verify_password
from app.users import service as users_service
from app.users.models import User

BAD_CREDENTIALS = "Email or password is incorrect."
DEACTIVATED = "This account has been deactivated. Ask an administrator to reactivate it."


class LoginFailed(DojoError):
    """Sign-in refused; `status_code` and the message are what the client sees."""

    def __init__(self, status_code: int, message: str) -> None:
        headers = {"WWW-Authenticate": "Bearer"} if status_code == 401 else None
        super().__init__(message, status_code, headers)


def client_ip(request: Request) -> str:
    """The peer address; uvicorn rewrites it from X-Forwarded-For only for TRUSTED_PROXIES."""
    return request.client.host if request.client else "unknown"


def login_limiter(request: Request) -> LoginLimiter:
    """The app's limiter (one per app instance, so each test app starts with clean counts)."""
    limiter: LoginLimiter = request.app.state.login_limiter
    return limiter


PASSWORD_ATTEMPTS = "password attempts"


@dataclass(frozen=True)
class PasswordGuard:
    """A password check other than signing in, counted in the sign-in windows of this client and account.

    `check()` before the password is looked at (LoginThrottled when a window is full), `failed()` after
    a wrong or refused one, `succeeded()` when it went through.
    """

    limiter: LoginLimiter
    ip: str
    account: str

    def check(self) -> None:
        self.limiter.check_and_count(ip=self.ip, account=self.account, what=PASSWORD_ATTEMPTS)

    def failed(self) -> None:
        self.limiter.failed(ip=self.ip, account=self.account)

    def succeeded(self) -> None:
        self.limiter.succeeded(ip=self.ip, account=self.account)


def password_guard(request: Request, account: str) -> PasswordGuard:
    """The guard for a password check by this request's client on `account` (an email)."""
    return PasswordGuard(login_limiter(request), client_ip(request), users_service.normalise_email(account))


def authenticate(*, session: Session, limiter: LoginLimiter, ip: str, email: str, password: str) -> User:
    """The active user with these credentials; raises LoginThrottled or LoginFailed."""
    account = users_service.normalise_email(email)
    limiter.check_and_count(ip=ip, account=account)
    user = users_service.get_by_email(session=session, email=account) if account else None
    # verify_password spends the same time when there is no user, so timing reveals nothing.
    if not verify_password(password, user.password_hash if user else None) or user is None:
        limiter.failed(ip=ip, account=account)
        raise LoginFailed(401, BAD_CREDENTIALS)
    # Deactivation is only revealed to someone who knows the password.
    if not user.is_active:
        raise LoginFailed(403, DEACTIVATED)
    limiter.succeeded(ip=ip, account=account)
    return user
