"""Login rate limits kept in process memory: sliding windows per client IP and per account.

Per IP every attempt counts; per account only failures count (a success clears them), so a
guesser locks the account's password checks without locking out a person who types it right
once the window has passed. One process keeps its own counts; several web processes each allow
the limit (documented trade-off of the embedded default).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

from app.core.settings import Settings

SWEEP_ABOVE_KEYS = 10_000


class LoginThrottled(Exception):
    """Too many sign-in attempts; the message is safe to show."""

    def __init__(self, retry_after: int) -> None:
        minutes = max(1, math.ceil(retry_after / 60))
        super().__init__(f"Too many sign-in attempts. Wait {minutes} minute(s) and try again.")
        self.retry_after = retry_after


class SlidingWindow:
    """Counts events per key over the last `window` seconds."""

    def __init__(self, *, limit: int, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _prune(self, key: str, now: float) -> deque[float]:
        events = self._events.setdefault(key, deque())
        while events and events[0] <= now - self.window:
            events.popleft()
        return events

    def retry_after(self, key: str) -> int:
        """Seconds until `key` may act again; 0 when it is under the limit."""
        with self._lock:
            now = self.clock()
            events = self._prune(key, now)
            if len(events) < self.limit:
                if not events:
                    self._events.pop(key, None)
                return 0
            return max(1, math.ceil(events[0] + self.window - now))

    def hit(self, key: str) -> None:
        with self._lock:
            now = self.clock()
            if len(self._events) > SWEEP_ABOVE_KEYS:
                self._sweep(now)
            self._prune(key, now).append(now)

    def _sweep(self, now: float) -> None:
        # Many distinct keys (an address sprayed with made-up emails) must not grow memory forever.
        cutoff = now - self.window
        self._events = {key: events for key, events in self._events.items() if events and events[-1] > cutoff}

    def __len__(self) -> int:
        return len(self._events)

    def clear(self, key: str) -> None:
        with self._lock:
            self._events.pop(key, None)


class LoginLimiter:
    """The two windows the sign-in form and the token endpoint share."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        window = settings.login_window_seconds
        self.per_ip = SlidingWindow(limit=settings.login_attempts_per_ip, window=window, clock=clock)
        self.per_account = SlidingWindow(limit=settings.login_attempts_per_account, window=window, clock=clock)

    def check_and_count(self, *, ip: str, account: str) -> None:
        """Raise LoginThrottled when either window is full; otherwise count this attempt for the IP."""
        wait = max(self.per_ip.retry_after(ip), self.per_account.retry_after(account))
        if wait:
            raise LoginThrottled(wait)
        self.per_ip.hit(ip)

    def failed(self, *, account: str) -> None:
        self.per_account.hit(account)

    def succeeded(self, *, account: str) -> None:
        self.per_account.clear(account)
