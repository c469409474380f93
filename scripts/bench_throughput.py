"""Graded submissions per minute with the local pool (real sandboxed gradings of a built-in scenario).

Usage: .venv/bin/python scripts/bench_throughput.py [--scenario warm-up] [--count 8]
       [--concurrency 0] [--files starter|solution] [--cold]

Starts a real `dojo serve` on a throw-away data directory (SQLite, local pool of --concurrency
threads, one per core by default, warm sandboxes unless --cold). One submission, not timed, stores
the scenario's reference; then --count submissions go in at once through the API and are timed to
the last verdict. `dojo bench` measures the same way (app/bench/pipeline.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.bench import pipeline, server  # noqa: E402

EMAIL = "throughput-{n}@example.com"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="warm-up")
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--concurrency", type=int, default=0, help="0 = one per CPU core")
    parser.add_argument("--files", choices=["starter", "solution"], default="starter")
    parser.add_argument("--cold", action="store_true", help="no warm sandboxes: each grading starts its own")
    args = parser.parse_args()
    from app.engine.builtin import find_builtin

    package = find_builtin(args.scenario)
    if package is None:
        print(f"unknown scenario {args.scenario!r}", file=sys.stderr)
        return 2
    files = dict(package.solution_files if args.files == "solution" else package.starter_files)
    work = Path(tempfile.mkdtemp(prefix="dojo-bench-"))
    env = server.bench_env(work / "data", WARM_REFERENCES="0", WARM_SANDBOXES="0" if args.cold else "1",
                           WORKER_CONCURRENCY=str(args.concurrency))
    emails = server.create_users([EMAIL.format(n=n) for n in range(args.count)], env=env)
    serve = server.BenchServer(env=env, log=work / "serve.log")
    try:
        serve.start_and_wait()
        clients = [serve.client(email=email) for email in emails]  # one grading at a time per candidate
        first = pipeline.submit_and_wait(clients[0], scenario=args.scenario, files=files)
        print(f"reference and first grading (not timed): {first.seconds:.1f} s")
        print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        result = pipeline.throughput(clients, scenario=args.scenario, files=files, count=args.count)
        for client in clients:
            client.close()
    finally:
        serve.stop()
    print(f"cores: {os.cpu_count()}; pool concurrency: {args.concurrency or os.cpu_count()}; "
          f"warm sandboxes: {'off' if args.cold else 'on'}; {args.count} x {args.files} of {args.scenario}")
    print(f"finished: {result.count} in {result.seconds:.1f} s  ->  {result.per_minute:.1f} graded submissions/minute")
    print(f"statuses: {result.statuses}; load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
