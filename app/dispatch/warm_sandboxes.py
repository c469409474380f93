"""Warm sandboxes and forked judges for the grading workers: the local pool's threads and each Celery pool process."""

from __future__ import annotations

import logging

from app.sandbox.warm import WarmKeeper

log = logging.getLogger(__name__)


def start_keeping_warm() -> WarmKeeper | None:
    """Give the calling worker thread a standby sandbox for the configured grading limits.

    None (and cold sandboxes, or the refusal to grade, as before) when bubblewrap is not usable here.
    """
    from app.core.settings import get_settings
    from app.engine.harness_run import configured_limits
    from app.sandbox import warm
    from app.sandbox.bwrap_probe import bwrap_problem

    problem = bwrap_problem()
    if problem is not None:
        log.info("no warm sandboxes: bubblewrap is not usable (%s)", problem)
        return None
    settings = get_settings()
    return warm.keep_warm(limits=configured_limits(), max_idle_seconds=settings.warm_sandbox_max_idle_seconds)


def start_judge_forks() -> None:
    """A process that grades again and again (the local pool, a Celery pool process) forks its judges
    from a fork server that imported torch once (JUDGE_FORK_SERVER); started now, ready a moment later."""
    from app.core.settings import get_settings
    from app.sandbox.judge_server import start_judge_fork_server

    if get_settings().judge_fork_server:
        start_judge_fork_server()


def stop_keeping_warm() -> None:
    """Stop the calling thread's standby sandbox."""
    from app.sandbox import warm

    warm.stop_keeping_warm()
