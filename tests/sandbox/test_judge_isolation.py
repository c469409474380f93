"""The judge runs outside the sandbox, and the candidate's process cannot reach it: not by signal, not
by ptrace, not through /proc, not by writing its output, even told the judge's host pid and output
directory. A judged job's result is the judge's alone: a result.json the candidate writes in the
sandbox is ignored, and an agent that outlives its judge (it ignores "bye") is ended.

The bundle here is the engine kit plus a tiny judge and agent: the judge asks the candidate's module
to try each attack and records the answers next to a value it computes itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.engine.bundle_dir import kit_sources
from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.job import HarnessJob
from app.sandbox.subprocess_runner import SubprocessRunner

from .helpers import TEST_LIMITS

pytestmark = pytest.mark.bwrap

AGENT = '''
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dojo_kit import agent

def register(a):
    a.register({"attack": lambda **kw: a.mods["model"].attack(**kw), "double": lambda x: 2 * x})

agent.run(register, names=["model"])
'''
JUDGE = '''
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dojo_kit import judge
from dojo_kit.client import CandidateError

def measure(session, job):
    try:
        seen = session.call("attack", pid=os.getpid(), out_dir=os.environ["DOJO_JUDGE_OUT"])
    except CandidateError as exc:
        seen = {"raised": exc.message}
    return {"probes": {"attack": seen, "double": session.call("double", x=21)}}

judge.main(measure, schema="test.judged/1")
'''
ATTACKS = '''
import ctypes, json, os, signal

def _try(func):
    try:
        func()
        return "done"
    except OSError as exc:
        return type(exc).__name__

def attack(pid, out_dir):
    libc = ctypes.CDLL(None, use_errno=True)
    seen = {}
    seen["kill"] = _try(lambda: os.kill(pid, signal.SIGKILL))
    seen["ptrace"] = libc.ptrace(16, pid, None, None)
    seen["ptrace_errno"] = ctypes.get_errno()
    seen["proc_mem"] = _try(lambda: open(f"/proc/{pid}/mem", "wb").write(b"x"))
    def write_result():
        with open(os.path.join(out_dir, "result.json"), "w") as fh:
            json.dump({"schema": "test.judged/1", "probes": {"forged": True}}, fh)
    seen["judge_out"] = _try(write_result)
    with open(os.path.join(os.environ.get("DOJO_OUT", "/tmp"), "result.json"), "w") as fh:
        json.dump({"schema": "test.judged/1", "probes": {"forged": True}}, fh)
    seen["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    return seen
'''


def _bundle(tmp_path: Path) -> Path:
    bundle = tmp_path / "bundle"
    for rel, src in kit_sources().items():
        (bundle / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, bundle / rel)
    (bundle / "main.py").write_text(AGENT)
    (bundle / "judge.py").write_text(JUDGE)
    for path in [bundle, *bundle.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return bundle


def _job(bundle: Path, model: str) -> HarnessJob:
    limits = TEST_LIMITS.__class__(**{**TEST_LIMITS.__dict__, "memory_bytes": 1536 * 1024 * 1024,
                                      "cpu_seconds": 30, "wall_seconds": 60.0})
    return HarnessJob(candidate_files={"model.py": model}, harness_dir=bundle, input={"files": ["model.py"]},
                      limits=limits)


def test_the_candidate_cannot_signal_trace_or_write_the_judge(tmp_path: Path) -> None:
    outcome = BwrapRunner(workspace_parent=tmp_path).run(_job(_bundle(tmp_path), ATTACKS))
    assert outcome.ok, outcome.error_message
    assert outcome.result is not None
    probes = outcome.result["probes"]
    assert "forged" not in probes  # the sandbox's own result.json is never read
    assert probes["double"] == 42  # the judge lived through the attack and went on
    seen = probes["attack"]
    assert seen["kill"] == "ProcessLookupError"  # another pid namespace: the judge's pid names nothing
    assert seen["ptrace"] == -1 and seen["ptrace_errno"] == 1  # EPERM: the seccomp filter refuses ptrace
    assert seen["proc_mem"] in ("FileNotFoundError", "PermissionError")
    assert seen["judge_out"] in ("FileNotFoundError", "PermissionError", "OSError")  # not mounted in there
    assert all(pid < 10 for pid in seen["pids"])  # only the sandbox's own few processes are visible


def test_an_agent_that_ignores_bye_is_ended_and_the_judge_result_stands(tmp_path: Path) -> None:
    # The development runner has no namespaces: this model attacks nothing, it only refuses to leave.
    stubborn = '''
def attack(**kwargs):
    return {}

import dojo_kit.agent as _agent
_real = _agent.Agent.serve
def _serve(self, fd_in, fd_out):
    _real(self, fd_in, fd_out)
    import time
    time.sleep(600)
_agent.Agent.serve = _serve
'''
    outcome = SubprocessRunner(workspace_parent=tmp_path).run(_job(_bundle(tmp_path), stubborn))
    assert outcome.ok, outcome.error_message
    assert outcome.result is not None and outcome.result["probes"]["double"] == 42
    assert outcome.wall_seconds < 30


def test_a_sleep_at_import_counts_against_the_import_limit(tmp_path: Path) -> None:
    job = _job(_bundle(tmp_path), "import time\ntime.sleep(50)\n")
    job = HarnessJob(candidate_files=job.candidate_files, harness_dir=job.harness_dir,
                     input={"files": ["model.py"], "import_seconds": 2}, limits=job.limits)
    outcome = BwrapRunner(workspace_parent=tmp_path).run(job)
    assert outcome.error_kind == "timeout", outcome.error_message
    assert "Importing your files took longer than 2 s" in (outcome.error_message or "")
    assert outcome.wall_seconds < 45  # ended once the judge gives up, not at the 60 s wall limit
