"""Grading tests run the harness in a plain subprocess (the sandbox has its own tests)."""

from __future__ import annotations

import pytest
from memo_runner import MemoRunner

from app.sandbox.subprocess_runner import SubprocessRunner


@pytest.fixture(scope="session")
def runner() -> SubprocessRunner:
    return SubprocessRunner()


@pytest.fixture(scope="module")
def memo_runner(runner: SubprocessRunner) -> MemoRunner:
    """The runner, each distinct harness job run once per module (tests/memo_runner.py): for one submission
    graded against several built-ins that give the harness the same job."""
    return MemoRunner(runner)


@pytest.fixture
def use_subprocess_runner(monkeypatch, runner):
    """Make the CLI commands (which call app.sandbox.get_runner) use the plain subprocess."""
    import app.sandbox

    monkeypatch.setattr(app.sandbox, "get_runner", lambda: runner)
