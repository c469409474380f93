"""Gates for tests that need a real service: skip with the reason, or fail when DOJO_REQUIRE_SERVICES=1.

A plain module (not conftest) so test modules can import it unambiguously.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

POSTGRES_URL = os.environ.get("DOJO_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("DOJO_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
REQUIRE_SERVICES = os.environ.get("DOJO_REQUIRE_SERVICES") == "1"
CHROMIUM = os.environ.get("DOJO_CHROMIUM", "/usr/bin/chromium")


def service_missing(reason: str) -> None:
    """Skip the test, or fail it when the services are required (CI)."""
    if REQUIRE_SERVICES:
        pytest.fail(f"required service missing: {reason}", pytrace=False)
    pytest.skip(reason)


def require_bwrap() -> str:
    path = shutil.which("bwrap")
    if path is None:
        service_missing("bubblewrap (bwrap) is not installed")
    return str(path)


def require_chromium() -> str:
    if not Path(CHROMIUM).exists():
        service_missing(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    return CHROMIUM


def require_redis() -> str:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as exc:  # any connection problem means the service is not there
        service_missing(f"Redis not reachable at {REDIS_URL}: {exc.__class__.__name__}")
    return REDIS_URL
