"""`dojo bench [--json]`: every figure of the performance issue, measured in one run on this machine.

- bare_s: one harness run of the scenario's solution in a plain subprocess (no sandbox, no web);
- sandbox_s: the same run in a cold bubblewrap sandbox;
- a real `dojo serve` (SQLite, local pool, warm sandboxes on) started first on a fresh data
  directory (install_start_s: it serves once the built-ins' references are stored;
  install_first_verdict_s), then started again on it: cold_first_verdict_s is the first submission
  as soon as it answers (API submit to verdict), pipeline_p50_s / pipeline_p95_s the submissions
  after it (one at a time, a few seconds apart), throughput_per_min a batch submitted at once by as
  many candidates, web_rps / web_p95_ms 20 clients requesting the signed-in dashboard and
  GET /api/attempts/{id} without pause, once the machine is quiet after the batch (details.web: by
  path, each path's median when requested one at a time, the wait for quiet, and python_loop_ms:
  a fixed Python loop timed just before and after the load, which tells a slow host from slow code),
  watchers_p95_ms the p95 of a few other clients' requests (dashboard, GET /api/attempts/{id}) while 300
  pages poll their gradings' Results panels as the workspace script does (details.watchers: the same
  with the page's earlier polling, every 400 ms and with backoff alone; see app/bench/watchers.py).
  `dojo bench --only watchers` measures that figure alone (app/bench/watch_only.py).
- gpt_v1_grading_s / llama_v1_grading_s / check_s: a grading of a gpt-v1 and of a llama-v1 built-in's
  solution of the same model size, and `dojo check` on the llama-v1 one, each in a cold sandbox with the
  reference stored, with the ratios the llama-v1 issue bounds: llama_over_gpt_grading (at most 1.2) and
  check_over_grading (check_s / llama_v1_grading_s, at most 1.1); beside them pipeline_v1_grading_s and
  pipeline_check_s (a pipeline-v1 built-in on the gpt-v1 model size, and `dojo check` on its data.py and
  train.py) with pipeline_over_gpt_grading (at most 1.0) and pipeline_check_over_grading (at most 1.1);
  app/bench/grading_times.py.
  `dojo bench --only gradings` measures these alone.
- split_<interface>_s, inprocess_<interface>_s, split_over_inprocess_<interface> (`dojo bench --only split`
  alone, app/bench/split_times.py): a grading with the judge outside the sandbox against the same grading
  with judge and agent in one process (a bench-only bundle; grading never runs that way), at most 1.2.
- fairness_scratch_s (`dojo bench --only fairness` alone, app/bench/fairness.py): another candidate's 2-second
  scratch run, submit to verdict, while one candidate's run and submit sleep at import, on two grading slots.
The machine's load average is recorded before and after: other work on the machine adds time.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.bench import grading_times, harness_times, pipeline, server
from app.bench.quiet import python_loop_ms, wait_until_quiet
from app.bench.report import BenchReport, measured_now
from app.bench.watchers import WatchersFigure, WatchOptions, watchers_figure
from app.bench.web_load import one_at_a_time, web_load

EMAIL = "bench-candidate@example.com"
BATCH_EMAILS = "bench-batch-{n}@example.com"


@dataclass(frozen=True)
class BenchOptions:
    scenario: str = "leaky-mask"
    llama_scenario: str = grading_times.LLAMA_SCENARIO  # the llama-v1 built-in graded beside a gpt-v1 one
    repeats: int = 3  # bare and sandboxed harness runs, gradings and checks
    pipeline_count: int = 10
    pause_seconds: float = 3.0  # between sequential submissions: a person reads the verdict first
    throughput_count: int = 8
    web_clients: int = 20
    web_seconds: float = 15.0
    data_dir: Path | None = None  # reuse a data directory: its first start (and reference computation) is done
    watchers: int = 300  # pages watching gradings at once
    watch_seconds: float = 30.0  # the measured window of each polling mode
    follow_seconds: float = 30.0  # typing time of each follow figure (app/bench/follow.py)

    @property
    def watch(self) -> WatchOptions:
        return WatchOptions(watchers=self.watchers, seconds=self.watch_seconds)


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def run_bench(options: BenchOptions, *, say: Callable[[str], None]) -> BenchReport:
    """Measure everything; `say` gets a line per step."""
    from app.engine.builtin import find_builtin

    package = find_builtin(options.scenario)
    if package is None:
        raise ValueError(f"no built-in scenario {options.scenario!r}")
    files = dict(package.solution_files)
    work = Path(tempfile.mkdtemp(prefix="dojo-bench-"))
    # This process's harness bundle cache: a write to the environment, which the engine reads afresh at each
    # bundle (app.core.settings.live_settings), so the benchmark never reuses or fills the install's cache.
    os.environ["DOJO_DATA_DIR"] = str(work / "harness")
    details: dict[str, object] = {"scenario": options.scenario, "cpus": os.cpu_count(), "load_before": _load()}

    say(f"harness runs of {options.scenario}'s solution: plain subprocess and cold sandbox, {options.repeats} each")
    paired = harness_times.bare_and_sandbox(options.scenario, repeats=options.repeats)
    details.update(bare_samples_s=_rounded(paired.plain), sandbox_samples_s=_rounded(paired.sandboxed))
    say(f"gradings: {grading_times.GPT_SCENARIO} (gpt-v1) and {options.llama_scenario} (llama-v1) "
        f"solutions, and `dojo check` on the llama-v1 one, {options.repeats} each")
    gradings = grading_times.grading_times(repeats=options.repeats, say=say, llama_scenario=options.llama_scenario)
    details.update(gradings.details())

    data = options.data_dir or work / "server"
    env = server.bench_env(data, WARM_REFERENCES="1", WARM_SANDBOXES="1")
    emails = [EMAIL, *(BATCH_EMAILS.format(n=n) for n in range(options.throughput_count))]
    if not (data / "dojo.sqlite3").exists():
        server.create_users(emails, env=env)
        say("first start on a fresh data directory (it serves at once; the references and matrix run behind)")
        details.update(_first_install(env, work / "install.log", options.scenario, files))
    say("`dojo serve` started again: the first submission as soon as it answers")
    serve = server.BenchServer(env=env, log=work / "serve.log")
    try:
        details["start_s"] = round(serve.start_and_wait(), 3)
        client = serve.client(email=EMAIL)
        cold = pipeline.submit_and_wait(client, scenario=options.scenario, files=files)
        say(f"first verdict {cold.seconds:.2f} s ({cold.status}); {options.pipeline_count} more, one at a time")
        verdicts = pipeline.sequential_latencies(client, scenario=options.scenario, files=files,
                                                 count=options.pipeline_count, pause=options.pause_seconds)
        say(f"throughput: {options.throughput_count} submissions at once, from as many candidates")
        batch_clients = [serve.client(email=email) for email in emails[1:]]
        batch = pipeline.throughput(batch_clients, scenario=options.scenario, files=files,
                                    count=options.throughput_count)
        for other in batch_clients:
            other.close()
        quiet_s = wait_until_quiet()
        loop_before_ms = python_loop_ms()
        say(f"web: {options.web_clients} clients for {options.web_seconds:g} s (after {quiet_s:.1f} s for the "
            "standby sandboxes of the batch to start)")
        page = serve.client()
        dashboard = page.sign_in_page(EMAIL, server.PASSWORD)
        web_paths = {"dashboard": dashboard, "api_attempt": f"/api/attempts/{cold.attempt_id}"}
        web = web_load(host=server.HOST, ports=[serve.port], cookies=page.cookies, token=client.token or "",
                       paths=web_paths, clients=options.web_clients, seconds=options.web_seconds)
        loop_after_ms = python_loop_ms()
        single = one_at_a_time(host=server.HOST, port=serve.port, cookies=page.cookies, token=client.token or "",
                               paths=web_paths)
        watching = watchers_figure(port=serve.port, env=env, scenario=options.scenario, slug=options.scenario,
                                   files=files, cookies=page.cookies, token=client.token or "", other_paths=web_paths,
                                   options=options.watch, say=say)  # fmt: skip
        client.close()
        page.close()
    finally:
        serve.stop()
    log_text = serve.log_text()

    latencies = [v.seconds for v in verdicts]
    bare, sandbox = harness_times.median(paired.plain), harness_times.median(paired.sandboxed)
    p50 = pipeline.median(latencies)
    figures: dict[str, float | None] = {
        "bare_s": round(bare, 3),
        "sandbox_s": round(sandbox, 3),
        "pipeline_p50_s": round(p50, 3),
        "pipeline_p95_s": round(pipeline.percentile(latencies, 0.95), 3),
        "cold_first_verdict_s": round(cold.seconds, 3),
        "throughput_per_min": round(batch.per_minute, 2),
        "web_rps": round(web.rps, 1),
        "web_p95_ms": round(web.p95_ms(), 1),
        "watchers_p95_ms": watching.p95_ms,
        "pipeline_p50_over_bare": round(p50 / bare, 3),
        "cold_first_over_pipeline_p50": round(cold.seconds / p50, 3),
        **gradings.figures(),
    }
    details.update(
        pipeline_samples_s=_rounded(latencies),
        verdict_statuses=sorted({v.status for v in [cold, *verdicts]} | set(batch.statuses)),
        throughput={"count": batch.count, "seconds": round(batch.seconds, 2), "statuses": batch.statuses},
        web={"requests": web.requests, "errors": web.errors, "seconds": round(web.seconds, 2),
             "quiet_wait_s": round(quiet_s, 2),
             "python_loop_ms": {"before": round(loop_before_ms, 1), "after": round(loop_after_ms, 1)},
             "p95_ms_by_path": {label: round(web.p95_ms(label), 1) for label in web.latencies_ms},
             "p50_ms": round(pipeline.percentile([v for vs in web.latencies_ms.values() for v in vs], 0.5), 1),
             "one_at_a_time_median_ms": {label: round(ms, 2) for label, ms in single.items()}},
        warm_standby_jobs=log_text.count("job ran in a warm standby sandbox"),
        cold_sandbox_jobs=log_text.count("running the job in a cold sandbox"),
        watchers=watching.details, load_after=_load(), work_dir=str(work), data_dir=str(data),
    )  # fmt: skip
    return BenchReport(figures=figures, watchers=watching, details=details, measured_at=measured_now())


def run_gradings_only(options: BenchOptions, *, say: Callable[[str], None]) -> BenchReport:
    """`dojo bench --only gradings`: a grading of each interface at one model size and `dojo check` on a
    model directory (app/bench/grading_times.py), with no server."""
    work = Path(tempfile.mkdtemp(prefix="dojo-bench-gradings-"))
    os.environ["DOJO_DATA_DIR"] = str(work / "harness")  # as run_bench: the install's caches stay untouched
    details: dict[str, object] = {"cpus": os.cpu_count(), "load_before": _load()}
    gradings = grading_times.grading_times(repeats=options.repeats, say=say, llama_scenario=options.llama_scenario)
    details.update(gradings.details(), load_after=_load(), work_dir=str(work))
    return BenchReport(figures=gradings.figures(), watchers=WatchersFigure(None, {}, 0.0, {}), details=details,
                       measured_at=measured_now())


def run_split_only(options: BenchOptions, *, say: Callable[[str], None]) -> BenchReport:
    """`dojo bench --only split`: what the judge/agent split costs a grading (app/bench/split_times.py)."""
    from app.bench.split_times import split_times

    work = Path(tempfile.mkdtemp(prefix="dojo-bench-split-"))
    os.environ["DOJO_DATA_DIR"] = str(work / "harness")  # as run_bench: the install's caches stay untouched
    details: dict[str, object] = {"cpus": os.cpu_count(), "load_before": _load()}
    times = split_times(repeats=options.repeats, work=work, say=say)
    details.update(times.details(), load_after=_load(), work_dir=str(work))
    return BenchReport(figures=times.figures(), watchers=WatchersFigure(None, {}, 0.0, {}), details=details,
                       measured_at=measured_now())


def _first_install(env: dict[str, str], log: Path, scenario: str, files: dict[str, str]) -> dict[str, float]:
    """The first start of a fresh install: how long until it serves, and its first verdict."""
    serve = server.BenchServer(env=env, log=log)
    try:
        start = serve.start_and_wait()
        client = serve.client(email=EMAIL)
        first = pipeline.submit_and_wait(client, scenario=scenario, files=files)
        client.close()
        # The mutation matrix runs in the background after the references: let it finish here, so
        # that the measurements after the restart do not share the machine with it.
        matrix_s = server.wait_for_validations(Path(env["DOJO_DATA_DIR"]) / "dojo.sqlite3")
    finally:
        serve.stop()
    return {"install_start_s": round(start, 3), "install_first_verdict_s": round(first.seconds, 3),
            "install_matrix_wait_s": round(matrix_s, 1)}


def _rounded(values: list[float]) -> list[float]:
    return [round(v, 3) for v in values]


def bench_command(*, as_json: bool, options: BenchOptions, only: str | None = None) -> int:
    """Run the benchmark (or, with only="watchers", that figure alone) and print the figures (JSON with
    --json); progress goes to stderr."""
    import sys

    def say(line: str) -> None:
        sys.stderr.write(f"bench: {line}\n")
        sys.stderr.flush()

    if only == "watchers":
        from app.bench.watch_only import run_watchers_only

        report = run_watchers_only(options.watch, scenario=options.scenario, data_dir=options.data_dir, say=say)
    elif only == "gradings":
        report = run_gradings_only(options, say=say)
    elif only == "fairness":
        from app.bench.fairness import FairnessOptions, run_fairness_only

        report = run_fairness_only(FairnessOptions(scenario=options.scenario, data_dir=options.data_dir), say=say)
    elif only == "split":
        report = run_split_only(options, say=say)
    elif only == "follow":
        from app.bench.follow import FollowOptions, run_follow_only

        report = run_follow_only(FollowOptions(seconds=options.follow_seconds), say=say)
    else:
        report = run_bench(options, say=say)
    if as_json:
        sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n")
        return 0
    headline = {**report.figures, "measured_at": report.measured_at}
    lines = [f"{key:30s} {value}" for key, value in headline.items()]
    watching = report.watchers
    for mode, seen in watching.modes.items():
        lines.append(f"{'  other p95 ms, ' + mode:30s} {seen.other_p95_ms} ({watching.polls_per_s(seen)} polls/s, "
                     f"{seen.not_modified} 304s)")
    details = report.details
    gradings = details.get("gradings")
    if isinstance(gradings, dict):
        lines.append(f"{'  gradings of':30s} {gradings['gpt_v1_scenario']} (gpt-v1), {gradings['llama_v1_scenario']}"
                     f" (llama-v1); dojo check on {gradings['check_directory']}")
        lines.append(f"{'  bounds':30s} llama_over_gpt_grading <= 1.2, check_over_grading <= 1.1")
        if gradings.get("pipeline_v1_samples_s"):
            lines.append(f"{'  and':30s} {gradings['pipeline_v1_scenario']} (pipeline-v1) with dojo check on it: "
                         "pipeline_over_gpt_grading <= 1.0, pipeline_check_over_grading <= 1.1")
    if only == "fairness":
        from app.bench.fairness import summary_lines

        lines += summary_lines(details)
    lines.append(f"{'load average before / after':30s} {details['load_before']} / {details['load_after']}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
