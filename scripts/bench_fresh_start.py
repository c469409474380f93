"""A fresh install as a new user meets it: clone, `scripts/serve.sh`, first page, first verdict.

Clones this repository (its committed HEAD) into a temporary directory and runs the clone's
`scripts/serve.sh` with a data directory and port of its own, so the install (the clone's own .venv)
is timed too. Then it measures:

- first_page_s: from starting `scripts/serve.sh` to the first answer of `/` (goal: within 90 s);
- ready_s: from the start to `/readyz` answering 200 (every built-in has its reference);
- first_verdict_s: a built-in's solution submitted through the API `--delay` seconds after the first
  page answered, submit to verdict (the mutation matrix is usually still running then);
- warm_verdict_s: the median of `--warm` submissions after it (goal: first <= 1.5 x warm).

    .venv/bin/python scripts/bench_fresh_start.py [--scenario leaky-mask] [--delay 60] [--warm 3] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.bench.http import Client  # noqa: E402
from app.bench.pipeline import median, submit_and_wait  # noqa: E402
from app.bench.server import HOST, PASSWORD, bench_env, free_port, load_average  # noqa: E402
from app.core.paths import ROOT_DIR  # noqa: E402

GOAL_FIRST_PAGE_S = 90.0
GOAL_FIRST_OVER_WARM = 1.5
EMAIL = "fresh-start@example.com"


@dataclass
class FreshStart:
    commit: str
    load_before: str
    first_page_s: float = 0.0
    ready_s: float | None = None  # None: /readyz was not 200 before the measurement ended
    readyz_at_submit: dict[str, object] = field(default_factory=dict)
    first_verdict_s: float = 0.0
    first_status: str = ""
    warm_verdicts_s: list[float] = field(default_factory=list)
    warm_verdict_s: float = 0.0
    load_after: str = ""

    @property
    def first_over_warm(self) -> float:
        return self.first_verdict_s / self.warm_verdict_s if self.warm_verdict_s else float("inf")


def clone_env(data_dir: Path, port: int) -> dict[str, str]:
    """The clone's environment: its own data directory and port, nothing of this checkout's venv."""
    env = bench_env(data_dir, DOJO_HOST=HOST, DOJO_PORT=str(port))
    ours = str(ROOT_DIR / ".venv")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(ours))
    env.pop("VIRTUAL_ENV", None)
    return env


def answers(port: int, path: str) -> int | None:
    """The status of one GET, or None when nothing answers yet."""
    with contextlib.suppress(OSError, Exception):
        client = Client(HOST, port, timeout=2)
        try:
            return client.get(path, expect=tuple(range(100, 600))).status
        finally:
            client.close()
    return None


def watch_ready(port: int, started: float, result: FreshStart, stop: threading.Event) -> None:
    """Record when /readyz first answers 200, polling once a second."""
    while not stop.wait(1.0):
        if answers(port, "/readyz") == 200:
            result.ready_s = round(time.monotonic() - started, 1)
            return


def solution_files(clone: Path, scenario: str) -> dict[str, str]:
    folder = clone / "app" / "scenarios_builtin" / scenario / "solution"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()) if p.is_file()}


def run(args: argparse.Namespace, work: Path) -> FreshStart:
    clone, data = work / "dojo", work / "data"
    subprocess.run(["git", "clone", "-q", str(ROOT_DIR), str(clone)], check=True, timeout=300)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, check=True, capture_output=True,
                            text=True).stdout.strip()
    port = free_port()
    env = clone_env(data, port)
    result = FreshStart(commit=commit, load_before=load_average())
    log = work / "serve.log"
    stop = threading.Event()
    with log.open("ab") as out:
        started = time.monotonic()
        server = subprocess.Popen(["bash", "scripts/serve.sh"], cwd=clone, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while (status := answers(port, "/")) is None or status >= 500:
            if server.poll() is not None:
                raise RuntimeError(f"scripts/serve.sh exited ({server.returncode}):\n{log.read_text()[-3000:]}")
            if time.monotonic() - started > args.timeout:
                raise RuntimeError(f"no page within {args.timeout:.0f} s:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
        first_page = time.monotonic()
        result.first_page_s = round(first_page - started, 1)
        print(f"first page after {result.first_page_s} s", flush=True)
        threading.Thread(target=watch_ready, args=(port, started, result, stop), daemon=True).start()

        subprocess.run([str(clone / ".venv" / "bin" / "dojo"), "create-user", "--email", EMAIL, "--password",
                        PASSWORD, "--role", "candidate"], cwd=clone, env=env, check=True, capture_output=True,
                       timeout=120)
        client = Client(HOST, port, timeout=60)
        client.sign_in_api(EMAIL, PASSWORD)
        files = solution_files(clone, args.scenario)
        time.sleep(max(0.0, first_page + args.delay - time.monotonic()))
        result.readyz_at_submit = client.get("/readyz", expect=(200, 503)).json()
        first = submit_and_wait(client, scenario=args.scenario, files=files)
        result.first_verdict_s, result.first_status = round(first.seconds, 2), first.status
        print(f"first verdict ({first.status}) after {result.first_verdict_s} s", flush=True)
        for _ in range(args.warm):
            time.sleep(1.0)  # a person reads the verdict before submitting again
            warm = submit_and_wait(client, scenario=args.scenario, files=files)
            result.warm_verdicts_s.append(round(warm.seconds, 2))
        result.warm_verdict_s = round(median(result.warm_verdicts_s), 2)
        client.close()
    finally:
        stop.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
    result.load_after = load_average()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", default="leaky-mask", help="the built-in whose solution is submitted")
    parser.add_argument("--delay", type=float, default=60.0, help="seconds after the first page before submitting")
    parser.add_argument("--warm", type=int, default=3, help="submissions after the first (their median is warm)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="give up when no page answers by then")
    parser.add_argument("--keep", action="store_true", help="keep the clone, data and log (path printed)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dojo-fresh-start-"))
    try:
        result = run(args, work)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(asdict(result) | {"first_over_warm": round(result.first_over_warm, 2)}, indent=2))
    else:
        print(f"commit {result.commit}; load before {result.load_before}, after {result.load_after}")
        print(f"first page:    {result.first_page_s:7.1f} s  (goal <= {GOAL_FIRST_PAGE_S:.0f} s)")
        print(f"/readyz 200:   {result.ready_s if result.ready_s is not None else 'not yet':>7} s  "
              f"(at the first submission: {result.readyz_at_submit.get('status')})")
        print(f"first verdict: {result.first_verdict_s:7.2f} s  ({result.first_status}, sent {args.delay:.0f} s "
              "after the first page)")
        print(f"warm verdict:  {result.warm_verdict_s:7.2f} s  (median of {result.warm_verdicts_s})")
        print(f"first / warm:  {result.first_over_warm:7.2f}    (goal <= {GOAL_FIRST_OVER_WARM})")
    return 0 if result.first_status == "passed" else 1


if __name__ == "__main__":
    raise SystemExit(main())
