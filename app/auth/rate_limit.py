"""Login throttling on the `limits` library, with counters that several web processes can share.

Every check of a password counts here, not only signing in: changing one's password (the current
one is checked), redeeming an invite with a password and signing up (app/auth/login.PasswordGuard).

Three moving windows, so a guesser is slowed down without locking the real owner out:
- per client address, every attempt counts (one address spraying many accounts);
- per account *and* client address, failures count; a success from that client clears them (a
  guesser elsewhere cannot lock the owner out by typing wrong passwords for their email);
- per account from every client, failures count, with a much higher ceiling (a distributed guesser).

The counters live in `limits` storage: memory:// for the embedded single process, Redis when
several processes serve the app (RATE_LIMIT_STORAGE_URL, or the broker's Redis by default).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import TypeVar

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.storage import Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from app.core.errors import DojoError
from app.core.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")
NAMESPACE = "dojo-login"


class LoginThrottled(DojoError):
    """Too many sign-in (or other password) attempts; the message is safe to show."""

    status_code = 429

    def __init__(self, retry_after: int, what: str = "sign-in attempts") -> None:
        minutes = max(1, math.ceil(retry_after / 60))
        super().__init__(
            f"Too many {what}. Wait {minutes} minute(s) and try again.",
            headers={"Retry-After": str(retry_after)},
        )
        self.retry_after = retry_after


def make_storage(uri: str) -> Storage:
    """A `limits` storage; Redis gets short timeouts so an outage slows no sign-in for long."""
    options = {"socket_connect_timeout": 1, "socket_timeout": 1} if uri.startswith(("redis://", "rediss://")) else {}
    storage = storage_from_string(uri, **options)
    assert isinstance(storage, Storage), "an async storage URI cannot serve the synchronous limiter"
    return storage


class LoginLimiter:
    """The windows the sign-in form and the token endpoint share."""

    def __init__(self, settings: Settings, storage: Storage | None = None) -> None:
        self.limiter = MovingWindowRateLimiter(storage or make_storage(settings.limits_storage_uri()))
        window = settings.login_window_seconds
        self.per_ip = self._item(settings.login_attempts_per_ip, window)
        self.per_client_account = self._item(settings.login_attempts_per_account, window)
        self.per_account = self._item(settings.login_failures_per_account_everywhere, window)

    @staticmethod
    def _item(amount: int, window: int) -> RateLimitItem:
        return RateLimitItemPerSecond(amount, window, namespace=NAMESPACE)

    def check_and_count(self, *, ip: str, account: str, what: str = "sign-in attempts") -> None:
        """Raise LoginThrottled when any window is full; otherwise count this attempt for the address."""
        wait = max(
            self._wait(self.per_ip, "ip", ip),
            self._wait(self.per_client_account, "account-ip", account, ip),
            self._wait(self.per_account, "account", account),
        )
        if wait:
            raise LoginThrottled(wait, what)
        self._hit(self.per_ip, "ip", ip)

    def failed(self, *, ip: str, account: str) -> None:
        self._hit(self.per_client_account, "account-ip", account, ip)
        self._hit(self.per_account, "account", account)

    def succeeded(self, *, ip: str, account: str) -> None:
        # Only this client's failures: the owner signing in must not reset a distributed guesser's count.
        _guard(lambda: self.limiter.clear(self.per_client_account, "account-ip", account, ip), default=None)

    def _wait(self, item: RateLimitItem, *ids: str) -> int:
        """Seconds until this key may try again; 0 when it is under its limit."""

        def seconds() -> int:
            if self.limiter.test(item, *ids):
                return 0
            reset = self.limiter.get_window_stats(item, *ids).reset_time
            return max(1, math.ceil(reset - time.time()))

        return _guard(seconds, default=0)

    def _hit(self, item: RateLimitItem, *ids: str) -> None:
        _guard(lambda: self.limiter.hit(item, *ids), default=False)


def _guard(action: Callable[[], T], *, default: T) -> T:
    """Run a counter operation; a store that is down must not stop people signing in (logged loudly)."""
    try:
        return action()
    except Exception:
        log.exception("login throttling storage unavailable; the attempt is not counted")
        return default
