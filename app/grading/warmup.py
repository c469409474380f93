"""Compute reference measurements for published scenario versions before the first candidate needs them.

Without this the first grading of each version also validates it (solution, starter, every mutant),
which makes that one candidate wait most of a minute.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger(__name__)


def warm_references(contents: list[dict[str, Any]]) -> None:
    """Ensure a cached reference for each package content, one after another; errors are only logged."""
    from app.engine.package import ScenarioPackage
    from app.grading.reference import ensure_reference
    from app.sandbox import get_runner

    for content in contents:
        try:
            package = ScenarioPackage.from_dict(content)
            ensure_reference(package=package, runner=get_runner())
            log.info("reference ready: %s", package.slug)
        except Exception:  # a broken package or a missing sandbox must not stop the server
            log.exception("could not compute the reference for a published scenario")


def start_warming(contents: list[dict[str, Any]]) -> threading.Thread:
    """Warm in a daemon thread so the server answers at once."""
    thread = threading.Thread(target=warm_references, args=(contents,), name="reference-warmup", daemon=True)
    thread.start()
    return thread
