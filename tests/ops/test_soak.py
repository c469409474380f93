"""A trimmed soak in CI (scripts/soak.py runs the full 200): submissions mixed with web traffic, a
worker killed and restarted, the broker restarted empty; every attempt finishes, stored exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest
from services import service_missing

from ops.instances import postgres_bin_dir, redis_server_binary
from ops.soak import run_soak

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]


def test_trimmed_soak_every_attempt_finishes_exactly_once(tmp_path: Path) -> None:
    if redis_server_binary() is None or postgres_bin_dir() is None:
        service_missing("redis-server and PostgreSQL server binaries are needed for the soak")
    figures = run_soak(tmp_path / "data", submissions=8, timeout=600, log=lambda _m: None)
    report = figures.report()
    assert figures.accepted == 8, report
    assert sum(figures.statuses.values()) == 8 and set(figures.statuses) == {"passed"}, report
    assert sorted(figures.stored_per_attempt.values()) == [1] * 8, report  # none lost, none twice
    assert not figures.web_errors, report
