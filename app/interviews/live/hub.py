"""Waking the live streams of an interview when it has new events: in this process, and across processes.

The events themselves are rows (app/interviews/live/log.py); a wake-up only says "interview n has
something new", and each woken stream reads the rows after its last event id. So a lost or repeated
wake-up costs a read, never an event: streams also look on their own every LIVE_CHECK_SECONDS.

In one process (the embedded default) `notify` sets each waiting stream's asyncio event through its
loop. With a Redis (LIVE_REDIS_URL, or a redis:// BROKER_URL) `notify` also publishes the interview id
on a channel that every web process listens to, so a save taken by one process wakes the streams of
another.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from dataclasses import dataclass, field

import redis
import redis.asyncio as aioredis

from app.core.settings import get_settings

CHANNEL_PREFIX = "dojo:live:"
log = logging.getLogger(__name__)


@dataclass(eq=False)
class Waiter:
    """One stream waiting for news of one interview."""

    interview_id: int
    loop: asyncio.AbstractEventLoop
    event: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait(self, timeout: float) -> bool:
        """True when woken, False after `timeout` seconds; either way ready to wait again."""
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
        except TimeoutError:
            return False
        self.event.clear()
        return True


class Hub:
    """The waiting streams of this process, by interview, and the Redis link to the other processes."""

    def __init__(self, redis_url: str = "") -> None:
        self.redis_url = redis_url
        self.origin = secrets.token_hex(6)  # this process's own publications are not delivered twice
        self._waiters: dict[int, set[Waiter]] = {}
        self._lock = threading.Lock()
        self._publisher: redis.Redis | None = None
        self._listener: asyncio.Task[None] | None = None

    def subscribe(self, interview_id: int) -> Waiter:
        """Called on the event loop of the stream that will wait."""
        waiter = Waiter(interview_id=interview_id, loop=asyncio.get_running_loop())
        with self._lock:
            self._waiters.setdefault(interview_id, set()).add(waiter)
        loop = asyncio.get_running_loop()
        listening = self._listener is not None and not self._listener.done() and self._listener.get_loop() is loop
        if self.redis_url and not listening:
            self._listener = loop.create_task(self._listen())
        return waiter

    def unsubscribe(self, waiter: Waiter) -> None:
        with self._lock:
            waiters = self._waiters.get(waiter.interview_id)
            if waiters is not None:
                waiters.discard(waiter)
                if not waiters:
                    del self._waiters[waiter.interview_id]

    def waiting(self, interview_id: int) -> int:
        with self._lock:
            return len(self._waiters.get(interview_id, ()))

    def wake(self, interview_id: int) -> None:
        """Wake this process's streams of the interview (from any thread)."""
        with self._lock:
            waiters = list(self._waiters.get(interview_id, ()))
        for waiter in waiters:
            with contextlib.suppress(RuntimeError):  # a loop that closed meanwhile
                waiter.loop.call_soon_threadsafe(waiter.event.set)

    def notify(self, interview_id: int) -> None:
        """The interview has new events: wake the streams here, and in every process sharing the Redis."""
        self.wake(interview_id)
        if not self.redis_url:
            return
        try:
            if self._publisher is None:
                self._publisher = redis.Redis.from_url(self.redis_url, socket_timeout=1.0, socket_connect_timeout=1.0)
            self._publisher.publish(f"{CHANNEL_PREFIX}{interview_id}", self.origin)
        except redis.RedisError as exc:  # the other processes' streams find the events on their next poll
            log.warning("live: could not publish to Redis: %s", exc)

    async def _listen(self) -> None:
        """Deliver other processes' wake-ups to this process's streams, reconnecting after errors."""
        delay = 0.5
        while True:
            client = aioredis.from_url(self.redis_url)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(f"{CHANNEL_PREFIX}*")
                    delay = 0.5
                    async for message in pubsub.listen():
                        if message.get("type") != "pmessage":
                            continue
                        origin = message["data"].decode() if isinstance(message["data"], bytes) else ""
                        if origin == self.origin:
                            continue
                        channel = message["channel"]
                        name = channel.decode() if isinstance(channel, bytes) else str(channel)
                        with contextlib.suppress(ValueError):
                            self.wake(int(name[len(CHANNEL_PREFIX):]))
            except asyncio.CancelledError:
                raise
            except (redis.RedisError, OSError) as exc:
                log.warning("live: Redis subscription lost (%s); retrying in %.1f s", exc, delay)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)


_hub: Hub | None = None
_hub_lock = threading.Lock()


def get_hub() -> Hub:
    """This process's hub, made on first use from the settings."""
    global _hub
    with _hub_lock:
        if _hub is None:
            _hub = Hub(get_settings().live_pubsub_url())
        return _hub


def reset_hub() -> None:
    """Forget the hub (tests that change the settings)."""
    global _hub
    with _hub_lock:
        _hub = None
