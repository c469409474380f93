"""`dojo bench --only fairness`: one user holding grading slots does not keep another user waiting.

A real `dojo serve` with two grading slots (WORKER_CONCURRENCY=2, local pool, warm sandboxes) on a data
directory of its own. After one grading of the scenario's solution (on a fresh directory it computes
the reference), one candidate sends a run and a submit whose model.py sleeps at import (80 s: under the
90 s wall limit, and the import limit is raised above it, so each would hold a slot that long; the
default import limit of 15 s would end them sooner), and once one of them is being graded, another
candidate sends a scratch run that sleeps 2 s. The figure, fairness_scratch_s, is that scratch run's
submit-to-verdict time; the issue's bar is 10 s on two slots. Before slots were fair it waited for one
of the sleeping gradings to end (about 80 s).

The details say what the holder's two gradings were doing when the scratch run's verdict came (one
running, the other still queued: one slot per user), so a figure under the bar shows fairness rather
than gradings that ended early.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from app.bench import pipeline, server
from app.bench.http import Client
from app.bench.report import BenchReport, measured_now
from app.bench.watchers import WatchersFigure

HOLDER = "bench-slot-holder@example.com"
OTHER = "bench-scratch-user@example.com"
SLOTS = 2
BAR_SECONDS = 10.0
SCRATCH = (
    "# A short experiment: about two seconds of work.\n"
    "import time\n\n"
    "started = time.monotonic()\n"
    "time.sleep(2)\n"
    "print(f'slept {time.monotonic() - started:.1f} s')\n"
)


@dataclass(frozen=True)
class FairnessOptions:
    scenario: str = "leaky-mask"
    sleep_at_import_s: float = 80.0
    data_dir: Path | None = None


def sleeping_files(files: dict[str, str], seconds: float) -> dict[str, str]:
    """The scenario's solution whose model.py sleeps at import."""
    return {**files, "model.py": f"import time\n\ntime.sleep({seconds:g})\n\n" + files["model.py"]}


def run_fairness_only(options: FairnessOptions, *, say: Callable[[str], None]) -> BenchReport:
    from app.engine.builtin import find_builtin

    package = find_builtin(options.scenario)
    if package is None:
        raise ValueError(f"no built-in scenario {options.scenario!r}")
    solution = dict(package.solution_files)
    work = Path(tempfile.mkdtemp(prefix="dojo-bench-fairness-"))
    data = options.data_dir or work / "server"
    # The import limit (GRADING_IMPORT_SECONDS, 15 s by default) would end the sleeping gradings long before
    # the bar: raised above the sleep here, so that they hold their slots and the figure shows the slots'
    # fairness alone.
    import_limit = str(options.sleep_at_import_s + 5)
    env = server.bench_env(data, WARM_REFERENCES="0", WARM_SANDBOXES="1", WORKER_CONCURRENCY=str(SLOTS),
                           GRADING_IMPORT_SECONDS=import_limit)
    if not (data / "dojo.sqlite3").exists():
        server.create_users([HOLDER, OTHER], env=env)
    load_before = _load()
    serve = server.BenchServer(env=env, log=work / "serve.log")
    try:
        serve.start_and_wait()
        holder, other = serve.client(email=HOLDER), serve.client(email=OTHER)
        say("one grading first (on a fresh data directory it computes the reference)")
        first = pipeline.submit_and_wait(holder, scenario=options.scenario, files=solution)
        if first.status != "passed":  # without a reference every grading would fail at once: nothing measured
            raise RuntimeError(f"the solution of {options.scenario} graded {first.status}, not passed: see "
                               f"{work / 'serve.log'}")
        say(f"{HOLDER}: a run and a submit whose model.py sleeps {options.sleep_at_import_s:g} s at import")
        sleepy = sleeping_files(solution, options.sleep_at_import_s)
        held = [pipeline.submit(holder, scenario=options.scenario, files=sleepy, kind=kind)
                for kind in ("run", "submit")]
        _wait_until_one_runs(holder, held)
        time.sleep(1.0)  # the pool has taken whatever it takes of the holder's two
        say(f"{OTHER}: a scratch run of about 2 s on {SLOTS} slots")
        started = time.monotonic()
        scratch_id = pipeline.submit(other, scenario=options.scenario, files={"scratch.py": SCRATCH}, kind="scratch")
        verdict = pipeline.wait_verdict(other, scratch_id, since=started, timeout=600)
        holder_at_verdict = ", ".join(f"{kind} {_status(holder, attempt_id)}"
                                      for kind, attempt_id in zip(("run", "submit"), held, strict=True))
        say(f"scratch run: {verdict.status} after {verdict.seconds:.2f} s; the holder's gradings then: "
            f"{holder_at_verdict}")
        holder.close()
        other.close()
    finally:
        serve.stop()
    rows = _rows(data / "dojo.sqlite3", [*held, scratch_id])
    scratch_row = rows[-1]
    details: dict[str, object] = {
        "scenario": options.scenario, "slots": SLOTS, "sleep_at_import_s": options.sleep_at_import_s,
        "grading_import_seconds": float(import_limit),
        "bar_s": BAR_SECONDS, "scratch_status": verdict.status, "holder_at_scratch_verdict": holder_at_verdict,
        "attempts": rows,
        "scratch_wait_for_slot_s": _seconds_between(scratch_row["created_at"], scratch_row["started_at"]),
        "scratch_graded_s": _seconds_between(scratch_row["started_at"], scratch_row["finished_at"]),
        "cpus": os.cpu_count(), "load_before": load_before, "load_after": _load(),
        "work_dir": str(work), "data_dir": str(data),
    }  # fmt: skip
    return BenchReport(figures={"fairness_scratch_s": round(verdict.seconds, 3)},
                       watchers=WatchersFigure(None, {}, 0.0, {}), details=details, measured_at=measured_now())


def summary_lines(details: dict[str, object]) -> list[str]:
    """What `dojo bench --only fairness` prints under the figure."""
    return [
        f"{'  bar':30s} fairness_scratch_s <= {details['bar_s']} on {details['slots']} slots",
        f"{'  holder at the verdict':30s} {details['holder_at_scratch_verdict']} "
        f"(model.py sleeping {details['sleep_at_import_s']} s at import)",
        f"{'  scratch: waited / graded':30s} {details['scratch_wait_for_slot_s']} s for a slot / "
        f"{details['scratch_graded_s']} s in it",
    ]


def _wait_until_one_runs(client: Client, ids: list[int], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(_status(client, attempt_id) == "running" for attempt_id in ids):
            return
        time.sleep(0.1)
    raise RuntimeError(f"none of the holder's gradings {ids} started within {timeout:.0f} s")


def _status(client: Client, attempt_id: int) -> str:
    return str(client.get(f"/api/attempts/{attempt_id}").json()["status"])


def _rows(database: Path, ids: list[int]) -> list[dict[str, object]]:
    """Each attempt's kind, status and times as the server stored them."""
    marks = ",".join("?" * len(ids))
    with closing(sqlite3.connect(database, timeout=30)) as db:
        found = db.execute(f"SELECT id, kind, status, created_at, started_at, finished_at FROM attempts "  # noqa: S608
                           f"WHERE id IN ({marks}) ORDER BY id", ids).fetchall()  # fmt: skip
    keys = ("id", "kind", "status", "created_at", "started_at", "finished_at")
    return [dict(zip(keys, row, strict=True)) for row in found]


def _seconds_between(start: object, end: object) -> float | None:
    """Seconds between two of the server's stored times (SQLite text), None when either is missing."""
    if not isinstance(start, str) or not isinstance(end, str):
        return None
    return round((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds(), 3)


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]
