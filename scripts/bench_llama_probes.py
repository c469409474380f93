"""Time the llama-v1 probes on the llama-v1 template next to the gpt-v1 probes on a gpt-v1 solution of the
same model size (2 layers, 4 heads, width 48, the default training run), both in this process, one thread.

    .venv/bin/python scripts/bench_llama_probes.py [--runs 3] [--scenario training-wheels]

Each harness's measure() runs as a grading runs it (every probe, the tiny training run, the leak probe),
without the sandbox; one untimed run of each warms torch up first, then the runs alternate. Prints the
median seconds per probe and in total, and the ratio the llama-v1 issue bounds (at most 1.2); also the
median CPU seconds of measure() (process time), which other load on a shared machine barely moves, so
that a ratio measured on a busy machine can be told from a real change.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LLAMA_HARNESS = ROOT / "app" / "engine" / "llama_v1" / "harness"
GPT_HARNESS = ROOT / "app" / "engine" / "gpt_v1" / "harness"
sys.path[1:1] = [str(LLAMA_HARNESS), str(GPT_HARNESS)]

from dojo_harness import runner as gpt_runner  # noqa: E402
from llama_harness import runner as llama_runner  # noqa: E402

from app.engine.llama_v1.bundle import CORPUS_FILE, TEMPLATE_DIR  # noqa: E402

FILES = ("model.py", "data.py", "train.py")


def _candidate(source: Path, into: Path) -> str:
    into.mkdir(parents=True)
    for name in FILES:
        shutil.copyfile(source / name, into / name)
    return str(into)


def _forget_candidate(candidate: str) -> None:
    """Both candidates have a model.py: the harness imports from the first directory on sys.path."""
    for name in ("model", "data", "train"):
        sys.modules.pop(name, None)
    while candidate in sys.path:
        sys.path.remove(candidate)


def _time(runner, candidate: str, harness_dir: str) -> tuple[float, float, dict[str, float]]:
    """Wall and CPU seconds of one measure(), and its seconds per probe (wall)."""
    _forget_candidate(candidate)
    t0, c0 = time.perf_counter(), time.process_time()
    result = runner.measure(candidate, harness_dir, {"files": list(FILES), "probes": None})
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    if result.get("error"):
        raise SystemExit(f"the harness could not import the candidate: {result['error']}")
    return total, cpu, result["seconds"]


def _interleaved(runners: dict[str, tuple], runs: int) -> dict[str, tuple[float, float, dict[str, float]]]:
    """Median wall and CPU totals and per-probe seconds of each harness, runs alternating between them (so
    that load from other processes on a shared machine falls on both alike), after one warm-up run of each."""
    for runner, candidate, harness_dir in runners.values():
        _time(runner, candidate, harness_dir)
    totals: dict[str, list[float]] = {name: [] for name in runners}
    cpus: dict[str, list[float]] = {name: [] for name in runners}
    probes: dict[str, dict[str, list[float]]] = {name: {} for name in runners}
    for _ in range(runs):
        for name, (runner, candidate, harness_dir) in runners.items():
            total, cpu, seconds = _time(runner, candidate, harness_dir)
            totals[name].append(total)
            cpus[name].append(cpu)
            for probe, value in seconds.items():
                probes[name].setdefault(probe, []).append(value)
    return {name: (statistics.median(totals[name]), statistics.median(cpus[name]),
                   {p: statistics.median(v) for p, v in probes[name].items()})
            for name in runners}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scenario", default="training-wheels", help="the gpt-v1 built-in whose solution is timed")
    args = parser.parse_args()
    torch.set_num_threads(1)
    work = Path(tempfile.mkdtemp(prefix="dojo-bench-llama-"))
    try:
        harness_dir = work / "harness"
        harness_dir.mkdir()
        shutil.copyfile(CORPUS_FILE, harness_dir / "corpus.txt")
        llama = _candidate(TEMPLATE_DIR, work / "llama")
        gpt = _candidate(ROOT / "app" / "scenarios_builtin" / args.scenario / "solution", work / "gpt")
        timed = _interleaved({"gpt-v1": (gpt_runner, gpt, str(harness_dir)),
                              "llama-v1": (llama_runner, llama, str(harness_dir))}, args.runs)
        (gpt_total, gpt_cpu, gpt_probes), (llama_total, llama_cpu, llama_probes) = timed["gpt-v1"], timed["llama-v1"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"median of {args.runs} runs, seconds (gpt-v1: {args.scenario}'s solution; llama-v1: the template)")
    print(f"{'probe':<24}{'gpt-v1':>10}{'llama-v1':>10}")
    for name in sorted(set(gpt_probes) | set(llama_probes), key=lambda n: -llama_probes.get(n, gpt_probes.get(n, 0))):
        g = f"{gpt_probes[name]:.3f}" if name in gpt_probes else "-"
        llama_time = f"{llama_probes[name]:.3f}" if name in llama_probes else "-"
        print(f"{name:<24}{g:>10}{llama_time:>10}")
    print(f"{'total measure()':<24}{gpt_total:>10.3f}{llama_total:>10.3f}")
    print(f"{'CPU of measure()':<24}{gpt_cpu:>10.3f}{llama_cpu:>10.3f}")
    print(f"llama-v1 / gpt-v1: {llama_total / gpt_total:.2f} (bound: 1.2); CPU time: {llama_cpu / gpt_cpu:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
