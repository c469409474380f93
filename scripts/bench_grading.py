"""Wall time of one full grading (all probes + the tiny training run) pinned to one CPU core.

Usage: .venv/bin/python scripts/bench_grading.py [SLUG] [--repeat N]
Target: <= 8 s per grading on one core of the 2-core reference machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slug", nargs="?", default="leaky-mask")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("DOJO_DATA_DIR", tempfile.mkdtemp(prefix="dojo-bench-"))
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # children inherit one core

    from app.engine.builtin import find_builtin
    from app.engine.harness_run import run_harness
    from app.grading.grader import grade_files
    from app.grading.reference import ensure_reference
    from app.sandbox.subprocess_runner import SubprocessRunner

    pkg = find_builtin(args.slug)
    if pkg is None:
        print(f"no built-in scenario {args.slug!r}")
        return 1
    runners = [SubprocessRunner()]
    try:
        from app.sandbox import get_runner

        sandboxed = get_runner()
        if sandboxed.name != "subprocess":
            runners.append(sandboxed)
    except Exception as exc:  # no bubblewrap here: report the plain subprocess only
        print(f"sandbox runner unavailable: {exc}")
    print(f"scenario {pkg.slug} version {pkg.version}; cores pinned: {sorted(os.sched_getaffinity(0))}")
    for runner in runners:
        walls, probe_totals = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            outcome = run_harness(package=pkg, files=pkg.starter_files, runner=runner)
            walls.append(time.perf_counter() - t0)
            seconds = (outcome.result or {}).get("seconds", {})
            probe_totals.append(sum(seconds.values()))
        print(f"[{runner.name}] harness run (starter): wall median {statistics.median(walls):.2f} s "
              f"(min {min(walls):.2f}, max {max(walls):.2f}); "
              f"probes+training inside {statistics.median(probe_totals):.2f} s")
        for name, secs in sorted(seconds.items(), key=lambda kv: -kv[1])[:6]:
            print(f"    {name:<22} {secs:.2f} s")
        ensure_reference(package=pkg, runner=runner)  # one-off per scenario version, not part of a grading
        t0 = time.perf_counter()
        report = grade_files(package=pkg, files=pkg.starter_files, runner=runner)
        print(f"[{runner.name}] grade_files (reference cached): {time.perf_counter() - t0:.2f} s, "
              f"status {report.status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
