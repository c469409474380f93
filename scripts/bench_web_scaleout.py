"""Web latency with one, then two `dojo serve` processes of one install (PostgreSQL + Redis).

Usage: .venv/bin/python scripts/bench_web_scaleout.py [--clients 20] [--seconds 15]

`dojo bench` measures the embedded default: one web process on SQLite. Here a private PostgreSQL
cluster and a private Redis (free ports, never the machine's shared ones) back one, then two web
processes, with the clients spread over them as a load balancer would. One `dojo worker` grades the
submission whose result the API requests read, and is stopped before the load. Each client requests
the signed-in dashboard and GET /api/attempts/{id} in turn without pause, as `dojo bench` does.
Prints requests per second, p50 and p95 for each, and the load average.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.bench import pipeline, server  # noqa: E402
from app.bench.services import private_postgres, private_redis  # noqa: E402
from app.bench.web_load import web_load  # noqa: E402

EMAIL = "web-scaleout@example.com"




def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="leaky-mask")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    from app.engine.builtin import find_builtin

    package = find_builtin(args.scenario)
    if package is None:
        print(f"unknown scenario {args.scenario!r}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="dojo-bench-web-scaleout-"))
    with private_postgres() as database_url, private_redis() as broker_url:
        env = server.bench_env(work / "data", DATABASE_URL=database_url, BROKER_URL=broker_url,
                               WARM_REFERENCES="0", WARM_SANDBOXES="0", DOJO_QUEUE="bench-web-scaleout")
        server.create_users([EMAIL], env=env)
        webs = [server.BenchServer(env=env, log=work / f"serve-{n}.log") for n in range(2)]
        worker = server.DojoProcess(["worker", "--concurrency", "1"], env=env, log=work / "worker.log")
        try:
            webs[0].start_and_wait()
            worker.start()
            worker.wait_ready()
            client = webs[0].client(email=EMAIL)
            verdict = pipeline.submit_and_wait(client, scenario=args.scenario, files=dict(package.solution_files))
            print(f"graded attempt {verdict.attempt_id}: {verdict.status}")
            worker.stop()  # the load below measures the web processes alone
            page = webs[0].client()
            dashboard = page.sign_in_page(EMAIL, server.PASSWORD)
            paths = {"dashboard": dashboard, "api_attempt": f"/api/attempts/{verdict.attempt_id}"}
            for count in (1, 2):
                if count == 2:
                    webs[1].start_and_wait()
                ports = [web.port for web in webs[:count]]
                web_load(host=server.HOST, ports=ports, cookies=page.cookies, token=client.token or "",
                         paths=paths, clients=args.clients, seconds=2)  # not counted: connections, caches
                before = server.load_average()
                load = web_load(host=server.HOST, ports=ports, cookies=page.cookies, token=client.token or "",
                                paths=paths, clients=args.clients, seconds=args.seconds)
                every = [v for values in load.latencies_ms.values() for v in values]
                after = server.load_average()
                print(f"{count} web process(es), {args.clients} clients for {args.seconds:g} s: "
                      f"{load.rps:.1f} requests/s, p50 {pipeline.percentile(every, 0.5):.1f} ms, "
                      f"p95 {load.p95_ms():.1f} ms, {load.errors} errors; load before {before}, after {after}")
            client.close()
            page.close()
        finally:
            worker.stop()
            for web in webs:
                web.stop()
    print(f"logs: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
