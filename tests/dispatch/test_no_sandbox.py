"""Without a usable sandbox the grader refuses candidate code with a clear error and no host details."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.attempts.grading import grade
from app.engine.builtin import find_builtin
from app.sandbox.bwrap_probe import bwrap_problem


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DOJO_BWRAP", "/nonexistent/bwrap")
    monkeypatch.delenv("DOJO_UNSAFE_SUBPROCESS", raising=False)
    bwrap_problem.cache_clear()
    yield
    bwrap_problem.cache_clear()


def test_grading_without_sandbox_ends_as_sandbox_error(no_bwrap: None) -> None:
    outcome = grade(package=find_builtin("warm-up"), files={}, kind="submit", hints_used={})
    assert outcome.status == "error" and outcome.result is None
    assert outcome.error is not None and outcome.error.kind == "sandbox"
    assert "no working sandbox" in outcome.error.message
    assert "/nonexistent" not in outcome.error.message
