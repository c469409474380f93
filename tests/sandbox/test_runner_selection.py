"""get_runner refuses to run candidate code unsandboxed unless the development flag says so."""

from __future__ import annotations

import pytest

from app import sandbox
from app.sandbox import bwrap_probe
from app.sandbox.subprocess_runner import SubprocessRunner


@pytest.fixture()
def bwrap_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bwrap_probe, "bwrap_problem", lambda: "/usr/bin/bwrap not found")


@pytest.mark.usefixtures("bwrap_missing")
def test_get_runner_refuses_without_bwrap_and_without_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOJO_UNSAFE_SUBPROCESS", raising=False)
    with pytest.raises(sandbox.SandboxUnavailableError, match="DOJO_UNSAFE_SUBPROCESS=1"):
        sandbox.get_runner()
    assert sandbox.unsafe_mode_active() is False


@pytest.mark.usefixtures("bwrap_missing")
def test_get_runner_falls_back_to_subprocess_with_the_flag_and_warns(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("DOJO_UNSAFE_SUBPROCESS", "1")
    runner = sandbox.get_runner()
    assert isinstance(runner, SubprocessRunner)
    assert sandbox.unsafe_mode_active() is True
    assert "PLAIN SUBPROCESS" in caplog.text


@pytest.mark.bwrap
def test_get_runner_returns_bwrap_when_it_works_even_with_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.sandbox.bwrap_runner import BwrapRunner

    monkeypatch.setenv("DOJO_UNSAFE_SUBPROCESS", "1")
    assert bwrap_probe.bwrap_problem() is None
    assert isinstance(sandbox.get_runner(), BwrapRunner)
    assert sandbox.unsafe_mode_active() is False
