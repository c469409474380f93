"""Judges forked from the fork server (app/sandbox/judge_server.py): each starts with torch imported,
with its own environment, directory and descriptors; its exit code, a kill and the server's death are
all seen as they are for a judge started as a new process. A process that never started a server (a
one-shot command), or whose server is still importing torch, starts its judges as new processes, and
so does every process with JUDGE_FORK_SERVER off."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from app.core.settings import get_settings
from app.sandbox.job import HarnessJob
from app.sandbox.judge_process import AgentChannel, JudgeProcess, standby_judge
from app.sandbox.judge_server import (
    LOST_RETURNCODE,
    JudgeForkServer,
    judge_fork_server,
    start_judge_fork_server,
    stop_judge_fork_server,
)
from app.sandbox.result_file import ResultRead

from .helpers import TEST_LIMITS

pytestmark = pytest.mark.slow  # each test starts processes that import torch

# What the judge saw on arrival, written as its result: who its parent is, whether torch was already
# imported, the channel and progress descriptors its environment names, and where it runs.
REPORTING_JUDGE = '''
import json, os, sys
torch_on_arrival = "torch" in sys.modules
judge_out, judge_in = (int(fd) for fd in os.environ["DOJO_JUDGE_FDS"].split(","))
os.write(judge_out, b"request")
os.write(int(os.environ["DOJO_PROGRESS_FD"]), b"progress\\n")
facts = {"ppid": os.getppid(), "torch_on_arrival": torch_on_arrival, "cwd": os.getcwd(),
         "home": os.environ["HOME"], "reply": os.read(judge_in, 100).decode(),
         "input": json.load(open(os.environ["DOJO_JUDGE_INPUT"])), "session_leader": os.getsid(0) == os.getpid()}
with open(os.path.join(os.environ["DOJO_JUDGE_OUT"], "result.json"), "w") as fh:
    json.dump(facts, fh)
os._exit(int(os.environ.get("EXIT_CODE", "0")))
'''
EXIT_THREE = "import os\nos._exit(3)\n"
SLEEPING = "import time\ntime.sleep(300)\n"


def _bundle(tmp_path: Path, source: str) -> Path:
    bundle = tmp_path / "bundle"
    bundle.mkdir(parents=True)
    (bundle / "judge.py").write_text(source)
    (bundle / "main.py").write_text("")
    return bundle


def _ready_server() -> JudgeForkServer:
    server = start_judge_fork_server()
    assert server is not None and server.wait_ready(60)
    return server


def _begin(bundle: Path) -> tuple[JudgeProcess, AgentChannel]:
    channel = AgentChannel.open()
    judge = standby_judge(channel, preload=("torch",), max_result_bytes=100_000)
    judge.begin(HarnessJob(candidate_files={}, harness_dir=bundle, input={"seed": 5}, limits=TEST_LIMITS))
    return judge, channel


def _reporting_judge_run(tmp_path: Path) -> tuple[JudgeProcess, ResultRead]:
    """The reporting judge run to its end, its one request answered."""
    judge, channel = _begin(_bundle(tmp_path, REPORTING_JUDGE))
    try:
        os.read(channel.agent_in, 100)
        os.write(channel.agent_out, b"ok")
        read = judge.finish()
    finally:
        channel.close_all()
    return judge, read


@pytest.fixture
def server_off(monkeypatch):
    monkeypatch.setenv("JUDGE_FORK_SERVER", "false")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_a_forked_judge_starts_with_torch_and_its_own_environment_and_descriptors(tmp_path: Path) -> None:
    _ready_server()
    judge, channel = _begin(_bundle(tmp_path, REPORTING_JUDGE))
    try:
        assert os.read(channel.agent_in, 100) == b"request"
        os.write(channel.agent_out, b"reply")
        assert judge.progress_fd is not None and os.read(judge.progress_fd, 100) == b"progress\n"
        read = judge.finish()
    finally:
        channel.close_all()
    server = judge_fork_server()
    assert server is not None and read.result is not None, read.problem
    assert read.result["ppid"] == server.pid
    assert read.result["torch_on_arrival"] is True
    assert read.result["reply"] == "reply"
    assert read.result["input"] == {"seed": 5}
    assert read.result["cwd"] == read.result["home"] and "dojo-judge-" in str(read.result["cwd"])
    assert read.result["session_leader"] is True
    assert judge.returncode == 0 and not judge.failed


def test_a_forked_judges_exit_code_and_a_kill_are_seen(tmp_path: Path) -> None:
    _ready_server()
    judge, channel = _begin(_bundle(tmp_path / "a", EXIT_THREE))
    try:
        judge.finish()
    finally:
        channel.close_all()
    assert judge.returncode == 3 and not judge.failed  # 3: the agent is gone, not the judge's fault

    judge, channel = _begin(_bundle(tmp_path / "b", SLEEPING))
    try:
        started = time.monotonic()
        judge.finish(timeout=1.0)  # waits a second, then kills it
    finally:
        channel.close_all()
    assert judge.returncode == -signal.SIGKILL and judge.failed
    assert time.monotonic() - started < 10


def test_a_judge_outliving_its_server_ends_as_a_failure_and_the_next_gets_a_new_server(tmp_path: Path) -> None:
    server = _ready_server()
    judge, channel = _begin(_bundle(tmp_path / "a", SLEEPING))
    os.kill(server.pid, signal.SIGKILL)
    try:
        judge.finish(timeout=1.0)
    finally:
        channel.close_all()
    assert judge.returncode == LOST_RETURNCODE and judge.failed

    # The next judge starts as a new process while a replacement imports torch; later ones fork from it.
    judge, read = _reporting_judge_run(tmp_path / "b")
    assert read.result is not None and read.result["ppid"] == os.getpid()
    replacement = _ready_server()
    assert replacement.pid != server.pid
    judge, read = _reporting_judge_run(tmp_path / "c")
    assert read.result is not None and read.result["ppid"] == replacement.pid


def test_a_process_that_never_started_a_server_starts_its_judges_as_new_processes(tmp_path: Path) -> None:
    stop_judge_fork_server()
    judge, read = _reporting_judge_run(tmp_path)
    assert isinstance(judge._proc, subprocess.Popen)
    assert read.result is not None and read.result["ppid"] == os.getpid()
    assert judge_fork_server() is None  # a one-shot `dojo check` never waits for a server's import


def test_with_the_fork_server_off_a_judge_is_a_new_process(tmp_path: Path, server_off) -> None:
    judge, read = _reporting_judge_run(tmp_path)
    assert isinstance(judge._proc, subprocess.Popen)
    assert read.result is not None and read.result["ppid"] == os.getpid()
    assert read.result["torch_on_arrival"] is True  # the standby preloaded it itself
