"""What `dojo serve` does around the web app: migrate, load built-in scenarios, start local workers."""

from __future__ import annotations

import logging
import time

from fastapi import FastAPI

log = logging.getLogger("dojo")


def on_start(app: FastAPI) -> None:
    """Bring the database to head and load the built-in scenarios (idempotent)."""
    from sqlalchemy.exc import IntegrityError

    from app.core.db import get_engine, new_session
    from app.core.migrate import upgrade_to_head
    from app.scenarios.service import sync_builtin_scenarios

    upgrade_to_head(get_engine())
    for attempt in range(1, 4):
        try:
            with new_session() as session:
                versions = sync_builtin_scenarios(session=session)
                session.commit()
            break
        except IntegrityError:
            # Several web processes starting together load the same rows; the loser reads them next time.
            if attempt == 3:
                raise
            log.info("another process is loading the built-in scenarios; reading them again")
            time.sleep(0.5 * attempt)
    log.info("built-in scenarios ready: %d", len(versions))

    from app.core.settings import get_settings

    settings = get_settings()
    queued = 0
    if settings.warm_references:
        # Validation jobs on the grading workers, dispatched below; the reports are stored in the
        # version rows, so this happens once per engine version, not once per start.
        from app.scenarios.validation import validate_missing_references

        with new_session() as session:
            queued = validate_missing_references(session=session, versions=versions)
            session.commit()
        log.info("reference validation queued for %d scenario version(s)", queued)

    if settings.metrics_port:
        from app.ops.metrics import start_metrics_server

        start_metrics_server(settings.metrics_port)

    from app.dispatch import dispatcher

    # Local pool or Celery sender; either way queued and stale attempts are dispatched again now.
    active = dispatcher.start()
    if queued and settings.reference_wait_seconds > 0:
        # Serve only once every built-in can be graded at once: the first verdict after a start
        # must not wait for a validation (minutes on a fresh install or a new engine version).
        from app.scenarios.reference_wait import wait_for_validations

        wait_for_validations(version_ids=[v.id for v in versions], timeout=settings.reference_wait_seconds)
    from app.dispatch.local_pool import LocalPool

    if isinstance(active, LocalPool) and active.warm and not active.wait_until_warm():
        log.warning("serving before the grading threads' standby sandboxes were ready")

    from app.interviews import reminders

    reminders.start()  # invite reminders by email, when SMTP_URL is set


def on_stop(app: FastAPI) -> None:
    """Stop background workers started by on_start."""
    from app.dispatch import dispatcher
    from app.interviews import reminders

    reminders.stop()
    dispatcher.stop()
