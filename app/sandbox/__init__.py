"""Sandboxed execution of untrusted harness runs: pick the runner the host supports."""

from __future__ import annotations

import logging

from app.sandbox.job import Runner

logger = logging.getLogger(__name__)

UNSAFE_FLAG = "DOJO_UNSAFE_SUBPROCESS"
UNSAFE_WARNING = (
    "DOJO_UNSAFE_SUBPROCESS=1: candidate code runs in a PLAIN SUBPROCESS with no sandbox. "
    "Development only: never expose this server to untrusted users."
)


class SandboxUnavailableError(RuntimeError):
    """Bubblewrap cannot run here and the unsafe development flag is not set."""


def unsafe_mode_active() -> bool:
    """True when candidate code runs outside the sandbox: flag set and bubblewrap unusable (banner)."""
    if not _unsafe_flag_set():
        return False
    from app.sandbox.bwrap_probe import bwrap_problem

    return bwrap_problem() is not None


def _unsafe_flag_set() -> bool:
    from app.core.settings import live_settings

    return live_settings().unsafe_subprocess


def get_runner() -> Runner:
    """The bubblewrap runner when it works here (using this thread's standby sandbox when it keeps one,
    see app.sandbox.warm); the plain subprocess only with the unsafe flag."""
    from app.sandbox.bwrap_probe import bwrap_problem

    problem = bwrap_problem()
    if problem is None:
        from app.sandbox.bwrap_runner import BwrapRunner
        from app.sandbox.warm import WarmRunner, current_keeper

        keeper = current_keeper()
        return WarmRunner(keeper) if keeper is not None else BwrapRunner()
    if not _unsafe_flag_set():
        raise SandboxUnavailableError(
            f"Refusing to run candidate code: bubblewrap is not usable ({problem}). Install bubblewrap "
            f"(/usr/bin/bwrap) with user namespaces enabled, or set {UNSAFE_FLAG}=1 for local development only."
        )
    from app.sandbox.subprocess_runner import SubprocessRunner

    logger.warning("!" * 20 + " %s (%s) " + "!" * 20, UNSAFE_WARNING, problem)
    return SubprocessRunner()
