"""Reference warm-up at start: every published version is prepared once, and failures never escape."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from app.engine.builtin import find_builtin
from app.grading import reference, warmup


def test_warm_references_prepares_each_version(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def fake_ensure(*, package: Any, runner: Any) -> None:
        seen.append(package.slug)

    monkeypatch.setattr(reference, "ensure_reference", fake_ensure)
    monkeypatch.setattr("app.sandbox.get_runner", lambda: object())
    contents = [find_builtin("warm-up").to_dict(), find_builtin("leaky-mask").to_dict()]
    warmup.start_warming(contents).join(timeout=30)
    assert seen == ["warm-up", "leaky-mask"]


def test_broken_package_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="app.grading.warmup"):
        warmup.warm_references([{"slug": "broken"}])
    assert "could not compute the reference" in caplog.text
