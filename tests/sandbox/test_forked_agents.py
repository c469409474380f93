"""The development runner's agents forked from the judge fork server (app/sandbox/subprocess_runner.py):
a split harness's agent starts with torch imported, in a session of its own, with the run's environment,
directory, descriptors, limits and priority, its output captured and its wall clock enforced as for an
agent started as a new process; without a ready server, or with JUDGE_FORK_SERVER off, it is one."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.core.settings import get_settings
from app.sandbox.job import HarnessJob
from app.sandbox.judge_server import fork_server_pids, start_judge_fork_server
from app.sandbox.subprocess_runner import SubprocessRunner

from .helpers import live_children
from .runs import WARM_TEST_LIMITS

pytestmark = pytest.mark.slow  # the server imports torch

# The agent tells the judge (and its stdout) what it found on arrival; the judge's result is that report.
REPORTING_AGENT = '''
import json, os, resource, sys
agent_in, agent_out = (int(fd) for fd in os.environ["DOJO_AGENT_FDS"].split(","))
facts = {"ppid": os.getppid(), "torch_on_arrival": "torch" in sys.modules, "cwd": os.getcwd(),
         "home": os.environ["HOME"], "session_leader": os.getsid(0) == os.getpid(),
         "cpu_limit": resource.getrlimit(resource.RLIMIT_CPU)[0], "nice": os.getpriority(os.PRIO_PROCESS, 0),
         "path0": sys.path[0], "argv": sys.argv,
         "progress_fd_open": os.path.exists("/proc/self/fd/" + os.environ["DOJO_PROGRESS_FD"])}
print(json.dumps(facts), flush=True)
print("to stderr", file=sys.stderr, flush=True)
SLEEP = 0
if SLEEP:  # past the wall clock before the judge has its answer
    import time
    time.sleep(SLEEP)
os.write(agent_out, json.dumps(facts).encode())
'''
REPORT_JUDGE = '''
import json, os
judge_out, judge_in = (int(fd) for fd in os.environ["DOJO_JUDGE_FDS"].split(","))
report = os.read(judge_in, 100_000)
with open(os.path.join(os.environ["DOJO_JUDGE_OUT"], "result.json"), "w") as fh:
    fh.write(report.decode() if report else json.dumps({"agent": "gone"}))
os._exit(0)
'''


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "main.py").write_text(REPORTING_AGENT)
    (bundle / "judge.py").write_text(REPORT_JUDGE)
    return bundle


@pytest.fixture
def server_pid() -> int:
    server = start_judge_fork_server()
    assert server is not None and server.wait_ready(60)
    return server.pid


@pytest.fixture
def server_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("JUDGE_FORK_SERVER", "false")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def _run(bundle: Path, tmp_path: Path, **limits: float) -> tuple[dict, object]:
    job = HarnessJob(candidate_files={"model.py": "X = 1\n"}, harness_dir=bundle, input={"seed": 1},
                     limits=replace(WARM_TEST_LIMITS, **limits))
    outcome = SubprocessRunner(workspace_parent=tmp_path / "runs").run(job)
    return json.loads(outcome.stdout.splitlines()[0]) if outcome.stdout else {}, outcome


def test_a_split_harness_agent_is_forked_with_torch_and_the_runs_limits(bundle: Path, tmp_path: Path,
                                                                       server_pid: int) -> None:
    (tmp_path / "runs").mkdir()
    facts, outcome = _run(bundle, tmp_path)
    assert outcome.error_kind is None, outcome.error_message
    assert outcome.result == facts  # the channel reached the judge
    assert facts["ppid"] == server_pid and facts["torch_on_arrival"] is True
    assert facts["session_leader"] is True
    assert facts["cpu_limit"] == WARM_TEST_LIMITS.cpu_seconds
    assert facts["nice"] >= get_settings().sandbox_nice
    assert facts["path0"] == str(bundle.resolve()) and facts["argv"] == [str(bundle.resolve() / "main.py")]
    assert facts["home"] == facts["cwd"] and facts["progress_fd_open"] is True
    assert "to stderr" in outcome.stderr
    assert set(live_children()) == set() and list((tmp_path / "runs").iterdir()) == []


def test_a_forked_agent_past_its_wall_clock_is_killed(bundle: Path, tmp_path: Path, server_pid: int) -> None:
    (tmp_path / "runs").mkdir()
    (bundle / "main.py").write_text(REPORTING_AGENT.replace("SLEEP = 0", "SLEEP = 60"))
    facts, outcome = _run(bundle, tmp_path, wall_seconds=3.0)
    assert facts["ppid"] == server_pid
    assert outcome.error_kind == "timeout", outcome.error_message
    assert set(live_children()) == set() and server_pid in fork_server_pids()
    assert not [pid for pid in _children_of(server_pid)], "the agent outlived its run"


def test_with_the_fork_server_off_the_agent_is_a_new_process(bundle: Path, tmp_path: Path, server_pid: int,
                                                             server_off: None) -> None:
    (tmp_path / "runs").mkdir()
    facts, outcome = _run(bundle, tmp_path)
    assert outcome.error_kind is None, outcome.error_message
    assert facts["ppid"] == os.getpid() and facts["torch_on_arrival"] is False


def _children_of(pid: int) -> list[int]:
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(pid) and fields[0] != "Z":
            found.append(int(entry))
    return found

