"""The development runner runs the same harness with the same outcome shapes (no isolation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.sandbox.subprocess_runner import SubprocessRunner

from .helpers import job_for


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("VALUE = 3", None),
        ("def broken(:\n", "syntax"),
        ("import no_such_module_here", "import"),
        pytest.param("import time\ntime.sleep(60)", "timeout", marks=pytest.mark.slow),  # waits out the wall limit
        ("import ctypes\nctypes.string_at(0)", "crash"),
        ("while True:\n    print('A' * 10000)", "output"),
        ("b = []\nwhile True:\n    b.append(bytearray(128 * 1024 * 1024))", "memory"),
        ("import os\nos._exit(0)", "crash"),
    ],
)
def test_subprocess_runner_classifies_like_the_sandbox(source: str, kind: str | None, tmp_path: Path) -> None:
    outcome = SubprocessRunner(workspace_parent=tmp_path).run(job_for(source))
    assert outcome.error_kind == kind, outcome.error_message
    if kind is None:
        assert outcome.result is not None and outcome.result["value"] == 3
    assert list(tmp_path.iterdir()) == []


def test_subprocess_runner_kills_background_children_at_the_end(tmp_path: Path) -> None:
    source = "import subprocess\nsubprocess.Popen(['sleep', '300'])\nVALUE = 1"
    outcome = SubprocessRunner(workspace_parent=tmp_path).run(job_for(source))
    assert outcome.ok
    from .helpers import live_children

    assert live_children() == []
