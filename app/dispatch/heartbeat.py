"""Beating a job's heartbeat from a background thread while the job runs."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from app.core.db import new_session

log = logging.getLogger(__name__)


@contextmanager
def heartbeat(beat: Callable[[Session], bool], every_seconds: float, name: str) -> Iterator[None]:
    """Call beat(session) in a background thread for as long as the block runs; stop when it says False."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(every_seconds):
            try:
                with new_session() as session:
                    if not beat(session):
                        log.warning("%s: heartbeat refused, claim lost", name)
                        return
            except Exception:  # a database hiccup must not kill the job; the next beat retries
                log.exception("%s: heartbeat failed", name)

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)
