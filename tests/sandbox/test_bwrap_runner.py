"""Properties of the bubblewrap sandbox beyond the malicious corpus."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.job import HarnessJob, Limits

from .helpers import FIXTURE_HARNESS, REPO_ROOT, job_for, live_sandbox_processes

pytestmark = pytest.mark.bwrap

INSPECT = """
import json, os
seen = {
    "uid": os.getuid(),
    "env": sorted(os.environ),
    "root": sorted(os.listdir("/")),
    "etc": sorted(os.listdir("/etc")),
    "repo": sorted(os.listdir(REPO)) if os.path.isdir(REPO) else [],
    "cwd": os.getcwd(),
    "hostname": os.uname().nodename,
}
VALUE = json.dumps(seen)
"""


def _inspect(tmp_path: Path) -> dict:
    import json

    source = f"REPO = {str(REPO_ROOT)!r}\n" + INSPECT
    outcome = BwrapRunner(workspace_parent=tmp_path).run(job_for(source))
    assert outcome.ok and outcome.result is not None, outcome.error_message
    return json.loads(outcome.result["value"])


def test_sandbox_sees_minimal_env_and_filesystem_and_no_app_source(tmp_path: Path) -> None:
    seen = _inspect(tmp_path)
    assert seen["env"] == sorted(
        ["PATH", "HOME", "TMPDIR", "LANG", "PYTHONHASHSEED", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
         "OPENBLAS_NUM_THREADS", "DOJO_CANDIDATE_DIR", "DOJO_HARNESS_DIR", "DOJO_INPUT", "DOJO_OUT",
         "DOJO_PROGRESS_FD", "DOJO_AGENT_FDS", "PWD"]
    )  # fmt: skip
    assert "shadow" not in seen["etc"] and "passwd" in seen["etc"]
    # The app, its data and its config stay invisible; only a virtualenv inside the repo is mounted.
    venv_inside_repo = Path(sys.prefix).resolve().is_relative_to(REPO_ROOT)
    assert seen["repo"] == ([".venv"] if venv_inside_repo else [])
    assert seen["cwd"] == "/dojo/work" and seen["hostname"] == "sandbox"


@pytest.mark.skipif(os.getuid() != 0, reason="the dedicated uid is used only when the service runs as root")
def test_sandbox_runs_as_a_dedicated_unprivileged_uid(tmp_path: Path) -> None:
    seen = _inspect(tmp_path)
    assert seen["uid"] >= int(os.environ["DOJO_SANDBOX_UID_BASE"])


def test_sandbox_imports_torch_under_the_default_memory_limit(tmp_path: Path) -> None:
    source = "import torch\nVALUE = float(torch.arange(4.0).sum())"
    limits = Limits(wall_seconds=60)  # default memory_bytes and everything else
    job = HarnessJob(candidate_files={"model.py": source}, harness_dir=FIXTURE_HARNESS, input={}, limits=limits)
    outcome = BwrapRunner(workspace_parent=tmp_path).run(job)
    assert outcome.ok and outcome.result is not None, (outcome.error_kind, outcome.error_message, outcome.stderr)
    assert outcome.result["value"] == 6.0


def test_sandbox_reports_a_broken_bwrap_as_sandbox_error_without_host_details(tmp_path: Path) -> None:
    outcome = BwrapRunner(workspace_parent=tmp_path, bwrap="/usr/bin/false").run(job_for("VALUE = 1"))
    assert outcome.error_kind == "sandbox"
    assert outcome.stderr == "" and str(tmp_path) not in (outcome.error_message or "")


def test_concurrent_runs_get_separate_sandboxes_and_all_finish(tmp_path: Path) -> None:
    source = "import os, time\ntime.sleep(0.5)\nVALUE = os.getuid()"
    outcomes: list = []

    def run_one() -> None:
        outcomes.append(BwrapRunner(workspace_parent=tmp_path).run(job_for(source)))

    threads = [threading.Thread(target=run_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outcomes) == 4 and all(outcome.ok for outcome in outcomes)
    if os.getuid() == 0:
        assert len({outcome.result["value"] for outcome in outcomes}) == 4
    assert live_sandbox_processes() == []


def test_wall_clock_timeout_kills_every_process_in_the_sandbox(tmp_path: Path) -> None:
    source = "import os, time\nfor _ in range(4):\n    os.fork() == 0 and os.setsid()\ntime.sleep(600)"
    limits = Limits(wall_seconds=2.0)
    job = HarnessJob(candidate_files={"model.py": source}, harness_dir=FIXTURE_HARNESS, input={}, limits=limits)
    outcome = BwrapRunner(workspace_parent=tmp_path, allow_processes=True).run(job)
    assert outcome.error_kind == "timeout"
    assert 2.0 <= outcome.wall_seconds < 10
    assert live_sandbox_processes() == []


def test_harness_cannot_start_processes_by_default_but_can_start_threads(tmp_path: Path) -> None:
    source = (
        "import os, threading\n"
        "box = []\n"
        "thread = threading.Thread(target=lambda: box.append('thread ran'))\n"
        "thread.start(); thread.join()\n"
        "try:\n"
        "    os.fork()\n"
        "    box.append('forked')\n"
        "except PermissionError:\n"
        "    box.append('fork refused')\n"
        "VALUE = box\n"
    )
    outcome = BwrapRunner(workspace_parent=tmp_path).run(job_for(source))
    assert outcome.ok and outcome.result is not None, outcome.error_message
    assert outcome.result["value"] == ["thread ran", "fork refused"]


def test_proc_shows_no_host_paths(tmp_path: Path) -> None:
    """No procfs in the sandbox: /proc/self/mountinfo would list every bind's host path. Only
    /proc/cpuinfo is there (torch picks its CPU kernels from it)."""
    import json

    source = (
        "import json, os\n"
        "seen = {'entries': sorted(os.listdir('/proc'))}\n"
        "for name in ('self/mountinfo', 'self/mounts', '1/cmdline', 'self/environ'):\n"
        "    seen[name] = os.path.exists('/proc/' + name)\n"
        "VALUE = json.dumps(seen)\n"
    )
    outcome = BwrapRunner(workspace_parent=tmp_path).run(job_for(source))
    assert outcome.ok and outcome.result is not None, outcome.error_message
    seen = json.loads(outcome.result["value"])
    assert seen["entries"] == ["cpuinfo"]
    assert not any(seen[name] for name in ("self/mountinfo", "self/mounts", "1/cmdline", "self/environ"))
    assert str(REPO_ROOT) not in outcome.result["value"] and sys.prefix not in outcome.result["value"]
