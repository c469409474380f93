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
    from app.scenarios import reference_wait

    settings = get_settings()
    if settings.warm_references:
        # Validation jobs on the grading workers, dispatched below: each version's solution run first
        # (its reference, stored at once), then its mutation matrix in the background. Nothing waits
        # here: /readyz says which references are still being prepared, and a grading that comes
        # before its version's reference waits in the queue (app/scenarios/reference_wait.py).
        from app.scenarios.validation import validate_missing_references

        with new_session() as session:
            queued = validate_missing_references(session=session, versions=versions)
            session.commit()
        log.info("validation queued for %d scenario version(s)", queued)
        reference_wait.await_references([v.id for v in versions])
    else:
        reference_wait.await_references([])

    if settings.metrics_port:
        from app.ops.metrics import start_metrics_server

        start_metrics_server(settings.metrics_port)

    from app.dispatch import dispatcher

    register_jobs()
    # Local pool or Celery sender; either way queued and stale jobs are dispatched again now.
    active = dispatcher.start()
    from app.dispatch.local_pool import LocalPool

    # With every reference stored (a restart) the first grading should find a warm standby: wait the
    # few seconds its torch import takes. Otherwise the pool warms up while the references run.
    if isinstance(active, LocalPool) and active.warm and not reference_wait.pending_references() \
            and not active.wait_until_warm():
        log.warning("serving before the grading threads' standby sandboxes were ready")

    from app.interviews import reminders

    reminders.start()  # invite reminders by email, when SMTP_URL is set


def register_jobs() -> None:
    """Every domain's job kinds, for the dispatcher (the `dojo worker` entry makes the same call)."""
    from app.attempts.job_registration import register_jobs as register_attempt_jobs
    from app.scenarios.job_registration import register_jobs as register_scenario_jobs

    register_attempt_jobs()
    register_scenario_jobs()


def on_stop(app: FastAPI) -> None:
    """Stop background workers started by on_start."""
    from app.dispatch import dispatcher
    from app.interviews import reminders

    reminders.stop()
    dispatcher.stop()
