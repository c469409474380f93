"""`dojo bench --only watchers`: the watchers figure alone (app/bench/watchers.py), in about three minutes.

A `dojo serve` on a data directory of its own (kept with --data-dir), references computed by the first
grading rather than validated at start (no mutation matrix running behind the measurement), then the
figure with the same other clients as the web figure: the signed-in dashboard and GET /api/attempts/{id}.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from app.bench import pipeline, server
from app.bench.quiet import python_loop_ms, wait_until_quiet
from app.bench.report import BenchReport, measured_now
from app.bench.watchers import WatchOptions, watchers_figure

EMAIL = "bench-candidate@example.com"


def run_watchers_only(options: WatchOptions, *, scenario: str, data_dir: Path | None,
                      say: Callable[[str], None]) -> BenchReport:  # fmt: skip
    from app.engine.builtin import find_builtin

    package = find_builtin(scenario)
    if package is None:
        raise ValueError(f"no built-in scenario {scenario!r}")
    work = Path(tempfile.mkdtemp(prefix="dojo-bench-watchers-"))
    data = data_dir or work / "server"
    env = server.bench_env(data, WARM_REFERENCES="0", WARM_SANDBOXES="1")
    if not (data / "dojo.sqlite3").exists():
        server.create_users([EMAIL], env=env)
    load_before = [round(x, 2) for x in os.getloadavg()]
    serve = server.BenchServer(env=env, log=work / "serve.log")
    try:
        serve.start_and_wait()
        client = serve.client(email=EMAIL)
        say("one grading first (on a fresh data directory it computes the reference)")
        first = pipeline.submit_and_wait(client, scenario=scenario, files=dict(package.solution_files))
        quiet_s = wait_until_quiet()
        page = serve.client()
        dashboard = page.sign_in_page(EMAIL, server.PASSWORD)
        loop_ms = python_loop_ms()
        figure = watchers_figure(
            port=serve.port, env=env, scenario=scenario, slug=scenario, files=dict(package.solution_files),
            cookies=page.cookies, token=client.token or "",
            other_paths={"dashboard": dashboard, "api_attempt": f"/api/attempts/{first.attempt_id}"},
            options=options, say=say)  # fmt: skip
        client.close()
        page.close()
    finally:
        serve.stop()
    figure.details.update(load_before=load_before, load_after=[round(x, 2) for x in os.getloadavg()],
                          quiet_wait_s=round(quiet_s, 1), python_loop_ms=round(loop_ms, 1), cpus=os.cpu_count(),
                          work_dir=str(work), data_dir=str(data))  # fmt: skip
    return BenchReport(figures={"watchers_p95_ms": figure.p95_ms}, watchers=figure, details=figure.details,
                       measured_at=measured_now())
