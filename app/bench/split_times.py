"""What the judge/agent split costs: the same grading with the judge outside the sandbox (as every
grading runs) and with judge and agent in one process inside it (a bench-only bundle, never used to
grade), each in a cold bubblewrap sandbox with the reference stored, alternating.

- split_<interface>_s / inprocess_<interface>_s: medians of the harness run plus the checks on a built-in's
  solution (gpt-v1: training-wheels, llama-v1: norm-and-gate);
- split_over_inprocess_<interface>: the ratio the grading-trust issue bounds (at most 1.2).
"""

from __future__ import annotations

import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from app.bench.grading_times import GPT_SCENARIO, LLAMA_SCENARIO
from app.bench.harness_times import scenario_job
from app.engine.harness_run import measured, outcome_error
from app.engine.interfaces import get_interface
from app.sandbox.job import HarnessJob, Runner

INPROCESS_MAIN = '''"""Bench mode only (app/bench/split_times.py): judge and agent in this one process."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


agent_entry = _load("agent_entry", "agent_entry.py")
judge_entry = _load("judge_entry", "judge_entry.py")
from dojo_kit import inprocess  # noqa: E402

if __name__ == "__main__":
    inprocess.main(agent_entry.register_ops, agent_entry.module_names(), judge_entry.measure,
                   schema=judge_entry.RESULT_SCHEMA, view=getattr(judge_entry, "VIEW", None))
'''


def inprocess_bundle(split_dir: Path, target: Path) -> Path:
    """A copy of a split bundle without judge.py (so runners treat it as one process) whose main.py runs
    the judge against the agent in one process."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(split_dir, target)
    (target / "main.py").rename(target / "agent_entry.py")
    (target / "judge.py").rename(target / "judge_entry.py")
    (target / "main.py").write_text(INPROCESS_MAIN)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


@dataclass(frozen=True)
class SplitTimes:
    samples: dict[str, dict[str, list[float]]]  # interface -> {"split": [...], "inprocess": [...]}

    def figures(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for interface, runs in self.samples.items():
            key = interface.replace("-", "_")
            split, inproc = statistics.median(runs["split"]), statistics.median(runs["inprocess"])
            out[f"split_{key}_s"] = round(split, 3)
            out[f"inprocess_{key}_s"] = round(inproc, 3)
            out[f"split_over_inprocess_{key}"] = round(split / inproc, 3)
        return out

    def details(self) -> dict[str, object]:
        return {"split": {i: {mode: [round(v, 3) for v in values] for mode, values in runs.items()}
                          for i, runs in self.samples.items()},
                "split_scenarios": {"gpt-v1": GPT_SCENARIO, "llama-v1": LLAMA_SCENARIO}}


def _timed(runner: Runner, job: HarnessJob, interface: str) -> float:
    """Seconds for the harness run and the checks; a run that does not measure is an error."""
    started = time.monotonic()
    outcome = runner.run(job)
    measurements = measured(outcome)
    if measurements is None:
        raise RuntimeError(f"the {interface} run failed: {outcome_error(outcome)}")
    get_interface(interface).run_checks(measurements, measurements, files=list(job.input["files"]))  # type: ignore[call-overload]
    return time.monotonic() - started


def split_times(*, repeats: int, work: Path, say: Callable[[str], None]) -> SplitTimes:
    from app.sandbox.bwrap_runner import BwrapRunner

    runner = BwrapRunner()
    samples: dict[str, dict[str, list[float]]] = {}
    for interface, slug in (("gpt-v1", GPT_SCENARIO), ("llama-v1", LLAMA_SCENARIO)):
        split_job = scenario_job(slug)
        inproc_job = replace(split_job, harness_dir=inprocess_bundle(split_job.harness_dir, work / f"inprocess-{slug}"))
        _timed(runner, split_job, interface)  # page cache and bundle, not timed
        _timed(runner, inproc_job, interface)
        runs: dict[str, list[float]] = {"split": [], "inprocess": []}
        for k in range(repeats):
            runs["split"].append(_timed(runner, split_job, interface))
            runs["inprocess"].append(_timed(runner, inproc_job, interface))
            say(f"{interface} {k + 1}/{repeats}: split {runs['split'][-1]:.2f} s, in one process "
                f"{runs['inprocess'][-1]:.2f} s")
        samples[interface] = runs
    return SplitTimes(samples)
