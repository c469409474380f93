"""Time the llama-v1 probes on the llama-v1 template next to the gpt-v1 probes on a gpt-v1 solution of the
same model size (2 layers, 4 heads, width 48, the default training run), no sandbox, one thread.

    .venv/bin/python scripts/bench_llama_probes.py [--runs 3] [--scenario training-wheels]

Each interface's harness runs as a grading runs it (every probe, the tiny training run, the leak probe),
with the judge and the agent in one process (the bench-only bundle of app/bench/split_times.py) in a plain
subprocess; one untimed run of each warms the page cache first, then the runs alternate. Prints the
median seconds per probe (the harness's own timings) and in total, and the ratio the llama-v1 issue
bounds (at most 1.2).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.bench.harness_times import scenario_job  # noqa: E402
from app.bench.split_times import inprocess_bundle  # noqa: E402
from app.engine.harness_run import measured  # noqa: E402
from app.engine.llama_v1.bundle import TEMPLATE_DIR  # noqa: E402
from app.sandbox.job import HarnessJob  # noqa: E402
from app.sandbox.subprocess_runner import SubprocessRunner  # noqa: E402

FILES = ("model.py", "data.py", "train.py")


def _seconds(runner: SubprocessRunner, job: HarnessJob) -> dict[str, float]:
    outcome = runner.run(job)
    if measured(outcome) is None or outcome.result is None:
        raise SystemExit(f"the harness did not measure: {outcome.error_kind}: {outcome.error_message}")
    seconds = outcome.result.get("seconds")
    assert isinstance(seconds, dict)
    return {str(k): float(v) for k, v in seconds.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scenario", default="training-wheels", help="the gpt-v1 built-in whose solution is timed")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dojo-bench-llama-"))
    os.environ["DOJO_DATA_DIR"] = str(work / "data")
    gpt_job = scenario_job(args.scenario)
    llama_job = scenario_job("norm-and-gate")
    llama_job = HarnessJob(candidate_files={f: (TEMPLATE_DIR / f).read_text() for f in FILES},
                           harness_dir=llama_job.harness_dir, input=llama_job.input, limits=llama_job.limits)
    jobs = {"gpt-v1": HarnessJob(candidate_files=gpt_job.candidate_files,
                                 harness_dir=inprocess_bundle(gpt_job.harness_dir, work / "gpt"),
                                 input=gpt_job.input, limits=gpt_job.limits),
            "llama-v1": HarnessJob(candidate_files=llama_job.candidate_files,
                                   harness_dir=inprocess_bundle(llama_job.harness_dir, work / "llama"),
                                   input=llama_job.input, limits=llama_job.limits)}
    runner = SubprocessRunner()
    for job in jobs.values():
        _seconds(runner, job)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in jobs}
    for _ in range(args.runs):
        for name, job in jobs.items():
            runs[name].append(_seconds(runner, job))
    probes = {name: {p: statistics.median(r[p] for r in rs) for p in rs[0]} for name, rs in runs.items()}
    totals = {name: statistics.median(sum(r.values()) for r in rs) for name, rs in runs.items()}
    gpt_probes, llama_probes = probes["gpt-v1"], probes["llama-v1"]
    print(f"median of {args.runs} runs, seconds (gpt-v1: {args.scenario}'s solution; llama-v1: the template)")
    print(f"{'probe':<24}{'gpt-v1':>10}{'llama-v1':>10}")
    for name in sorted(set(gpt_probes) | set(llama_probes), key=lambda n: -llama_probes.get(n, gpt_probes.get(n, 0))):
        g = f"{gpt_probes[name]:.3f}" if name in gpt_probes else "-"
        llama_time = f"{llama_probes[name]:.3f}" if name in llama_probes else "-"
        print(f"{name:<24}{g:>10}{llama_time:>10}")
    print(f"{'all probes':<24}{totals['gpt-v1']:>10.3f}{totals['llama-v1']:>10.3f}")
    print(f"llama-v1 / gpt-v1: {totals['llama-v1'] / totals['gpt-v1']:.2f} (bound: 1.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
