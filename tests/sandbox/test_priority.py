"""Sandboxed candidate code runs at SANDBOX_NICE: gradings, scratch runs and warm standbys yield the CPU to the
web process's requests, and the candidate cannot take the priority back."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.core.settings import Settings, get_settings
from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.subprocess_runner import SubprocessRunner
from app.sandbox.warm import WarmKeeper

from .helpers import job_for
from .runs import WARM_TEST_LIMITS

NICE = 7  # not the default, so the runs show the setting was read
# What the candidate sees: its niceness, and whether asking for the server's priority back was refused (the
# unsafe subprocess runner runs it as the service's user, root here, which may).
REPORT = """
import json, os
nice = os.getpriority(os.PRIO_PROCESS, 0)
try:
    os.setpriority(os.PRIO_PROCESS, 0, 0)
    raised = "allowed"
except PermissionError:
    raised = "refused"
VALUE = json.dumps({"nice": nice, "raise": raised})
"""


@pytest.fixture()
def sandbox_nice(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """SANDBOX_NICE set for this test; the niceness a sandboxed process should have (never above ours)."""
    monkeypatch.setenv("SANDBOX_NICE", str(NICE))
    get_settings.cache_clear()
    yield max(NICE, os.getpriority(os.PRIO_PROCESS, 0))
    get_settings.cache_clear()


def _niceness(pid: int) -> int:
    """Field 19 of /proc/<pid>/stat (after the command name in parentheses)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def test_the_default_is_10_and_out_of_range_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SANDBOX_NICE", raising=False)
    assert Settings().sandbox_nice == 10
    monkeypatch.setenv("SANDBOX_NICE", "25")
    with pytest.raises(ValidationError, match="sandbox_nice"):
        Settings()


@pytest.mark.bwrap
def test_a_bubblewrap_run_is_niced_and_cannot_undo_it(tmp_path: Path, sandbox_nice: int) -> None:
    outcome = BwrapRunner(workspace_parent=tmp_path).run(job_for(REPORT))
    assert outcome.ok and outcome.result is not None, outcome.error_message
    seen = json.loads(outcome.result["value"])
    assert seen == {"nice": sandbox_nice, "raise": "refused"}


def test_a_subprocess_run_is_niced(tmp_path: Path, sandbox_nice: int) -> None:
    outcome = SubprocessRunner(workspace_parent=tmp_path).run(job_for(REPORT))
    assert outcome.ok and outcome.result is not None, outcome.error_message
    assert json.loads(outcome.result["value"])["nice"] == sandbox_nice


@pytest.mark.bwrap
def test_a_warm_standby_is_niced_while_it_waits_and_its_job_too(tmp_path: Path, sandbox_nice: int) -> None:
    keeper = WarmKeeper(workspace_parent=tmp_path, limits=WARM_TEST_LIMITS)
    try:
        keeper.prepare()
        assert keeper.wait_ready(timeout=120), "the standby never became ready"
        standby = keeper.standby_host_pid()
        assert standby is not None
        assert _niceness(standby) == sandbox_nice  # preloading torch already runs at low priority
        outcome = keeper.run(job_for(REPORT, limits=WARM_TEST_LIMITS))
        assert keeper.warm_runs == 1, "the job did not run in the standby"
        assert outcome.ok and outcome.result is not None, outcome.error_message
        assert json.loads(outcome.result["value"]) == {"nice": sandbox_nice, "raise": "refused"}
    finally:
        keeper.close()
