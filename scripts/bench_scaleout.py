"""Scale-out: graded submissions per minute with one, then two `dojo worker`s (PostgreSQL + Redis).

Usage: .venv/bin/python scripts/bench_scaleout.py [--scenario leaky-mask] [--count 12]

Starts a private PostgreSQL cluster and a private Redis on free ports (never the machine's shared
ones), one `dojo serve` (the web process: it only enqueues) and `dojo worker --concurrency 1`
processes (warm sandboxes on unless --no-warm). With one worker, then with a second one added, it submits --count
solutions of the scenario at once through the API and times them to the last verdict. Prints both
rates, their ratio and the load average: other work on the machine makes the numbers noisy.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.bench import pipeline, server  # noqa: E402
from app.bench.services import private_postgres, private_redis  # noqa: E402

EMAIL = "scaleout-{n}@example.com"




def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="leaky-mask")
    parser.add_argument("--count", type=int, default=12, help="submissions per measurement")
    parser.add_argument("--warm", action=argparse.BooleanOptionalAction, default=True,
                        help="warm standby sandboxes (--no-warm: each job starts its sandbox and imports torch)")
    args = parser.parse_args()
    from app.engine.builtin import find_builtin

    package = find_builtin(args.scenario)
    if package is None:
        print(f"unknown scenario {args.scenario!r}", file=sys.stderr)
        return 2
    files = dict(package.solution_files)
    work = Path(tempfile.mkdtemp(prefix="dojo-bench-scaleout-"))
    with private_postgres() as database_url, private_redis() as broker_url:
        env = server.bench_env(work / "data", DATABASE_URL=database_url, BROKER_URL=broker_url,
                               WARM_REFERENCES="0", WARM_SANDBOXES="1" if args.warm else "0",
                               DOJO_QUEUE="bench-scaleout")
        emails = server.create_users([EMAIL.format(n=n) for n in range(args.count)], env=env)
        web = server.BenchServer(env=env, log=work / "serve.log")
        workers = [server.DojoProcess(["worker", "--concurrency", "1"], env=env, log=work / f"worker-{n}.log")
                   for n in range(2)]
        rates = []
        try:
            web.start_and_wait()
            clients = [web.client(email=email) for email in emails]  # one grading at a time per candidate
            for count_workers in (1, 2):
                workers[count_workers - 1].start()
                workers[count_workers - 1].wait_ready()
                # Not timed: the reference (first time only) and each worker's first standby sandbox.
                pipeline.throughput(clients, scenario=args.scenario, files=files, count=count_workers)
                time.sleep(3)  # the standbys finish importing torch, as they would between real submissions
                print(f"{count_workers} worker(s): load before {server.load_average()}")
                result = pipeline.throughput(clients, scenario=args.scenario, files=files, count=args.count)
                rates.append(result.per_minute)
                print(f"{count_workers} worker(s): {result.count} submissions in {result.seconds:.1f} s -> "
                      f"{result.per_minute:.1f} graded submissions/minute; statuses {result.statuses}; "
                      f"load after {server.load_average()}")
            for client in clients:
                client.close()
        finally:
            for worker in workers:
                worker.stop()
            web.stop()
    print(f"ratio two workers / one worker: {rates[1] / rates[0]:.2f} (target >= 1.8)")
    print(f"logs: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
