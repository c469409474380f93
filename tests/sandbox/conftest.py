"""Fixtures for sandbox tests."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.settings import get_settings

from .helpers import FAKE_DATABASE_URL, FAKE_SECRET_KEY


@pytest.fixture(autouse=True, scope="session")
def _private_sandbox_uids() -> Iterator[None]:
    """A uid range and slot directory of our own, so runs of other processes never mix with ours."""
    base = 100000 + (os.getpid() % 5000) * 300
    state = Path(f"/run/dojo-sandbox-test-{os.getpid()}") if os.getuid() == 0 else None
    os.environ["DOJO_SANDBOX_UID_BASE"] = str(base)
    if state is not None:
        os.environ["DOJO_SANDBOX_STATE_DIR"] = str(state)
    yield
    if state is not None:
        shutil.rmtree(state, ignore_errors=True)


@pytest.fixture()
def fake_secrets(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Server secrets in the parent environment that must never reach the candidate.

    The cached settings are dropped before and after: a run reads them (the sandbox's niceness), so
    they would otherwise keep the fake database URL for every later test in this worker."""
    monkeypatch.setenv("SECRET_KEY", FAKE_SECRET_KEY)
    monkeypatch.setenv("DATABASE_URL", FAKE_DATABASE_URL)
    get_settings.cache_clear()
    yield [FAKE_SECRET_KEY, FAKE_DATABASE_URL, "canary-pw-81b3"]
    monkeypatch.undo()
    get_settings.cache_clear()
