"""Waiting at start-up for the built-ins' reference validations, so no first verdict waits for one."""

from __future__ import annotations

import logging
import time

from app.core.db import new_session
from app.scenarios import jobs
from app.scenarios.validation import KIND

log = logging.getLogger(__name__)
_POLL_SECONDS = 0.5
_REPORT_EVERY_SECONDS = 15.0


def pending_validations(version_ids: list[int]) -> list[tuple[int, int, int]]:
    """(version id, done, total) of each version whose validation job is still queued or running."""
    with new_session() as session:
        active = [(vid, jobs.active_job(session=session, version_id=vid, kind=KIND)) for vid in version_ids]
        return [(vid, job.done, job.total) for vid, job in active if job is not None]


def wait_for_validations(*, version_ids: list[int], timeout: float) -> bool:
    """Block until none of the versions has a validation running (True) or the timeout passed (False)."""
    started = time.monotonic()
    reported = started
    log.info("computing reference measurements before serving (once per engine version)")
    while pending := pending_validations(version_ids):
        now = time.monotonic()
        if now - started > timeout:
            log.warning("serving although %d reference validation(s) are still running after %.0f s: "
                        "the first gradings of those scenarios wait for them", len(pending), timeout)
            return False
        if now - reported > _REPORT_EVERY_SECONDS:
            done, total = sum(p[1] for p in pending), sum(p[2] for p in pending)
            log.info("reference validation: %d scenario(s) left, %d of %d runs done", len(pending), done, total)
            reported = now
        time.sleep(_POLL_SECONDS)
    log.info("reference measurements ready after %.0f s", time.monotonic() - started)
    return True
