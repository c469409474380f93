"""The reminder loop `dojo serve` runs when SMTP_URL is set: every few minutes, send the due reminders.

Each reminder is claimed in the database before it is sent, so several web processes may all run
this loop without sending anything twice.
"""

from __future__ import annotations

import logging
import threading

from app.core.db import new_session
from app.core.settings import get_settings
from app.interviews import invites, mail

log = logging.getLogger(__name__)

_stop = threading.Event()
_thread: threading.Thread | None = None


def run_once() -> int:
    """One sweep in its own session; errors are logged, never raised into the loop."""
    try:
        with new_session() as session:
            return invites.send_due_reminders(session=session)
    except Exception:  # the database may be restarting; the next sweep tries again
        log.exception("invite reminder sweep failed")
        return 0


def _loop(interval: float) -> None:
    while not _stop.wait(interval):
        sent = run_once()
        if sent:
            log.info("sent %d invite reminder(s)", sent)


def start() -> None:
    """Start the loop (no-op without SMTP_URL or when running)."""
    global _thread
    if not mail.enabled() or (_thread is not None and _thread.is_alive()):
        return
    _stop.clear()
    _thread = threading.Thread(target=_loop, args=(float(get_settings().reminder_interval_seconds),),
                               name="invite-reminders", daemon=True)
    _thread.start()


def stop() -> None:
    global _thread
    _stop.set()
    if _thread is not None:
        _thread.join(timeout=5)
    _thread = None
