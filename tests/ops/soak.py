"""The soak: submissions mixed with web traffic through PostgreSQL, Redis, one `dojo serve` and two
`dojo worker`s, while one worker is killed and restarted and the broker is restarted (losing every
message). Every attempt must finish, and be graded (stored) exactly once.

Used by scripts/soak.py (the full 200) and tests/ops/test_soak.py (a trimmed run in CI).
"""

from __future__ import annotations

import json
import signal
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ops.instances import own_postgres, own_redis
from ops.rig import FINISHED, Rig, rig


@dataclass
class Figures:
    submissions: int
    accepted: int = 0
    refused: Counter[int] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    tries: Counter[int] = field(default_factory=Counter)
    stored_per_attempt: Counter[int] = field(default_factory=Counter)  # how many times each outcome was stored
    web_requests: int = 0
    web_errors: Counter[int] = field(default_factory=Counter)
    web_latencies: list[float] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def graded_twice(self) -> list[int]:
        return sorted(a for a, n in self.stored_per_attempt.items() if n > 1)

    def report(self) -> str:
        lat = sorted(self.web_latencies) or [0.0]
        p95 = lat[min(len(lat) - 1, int(len(lat) * 0.95))]
        finished = sum(self.statuses[s] for s in FINISHED)
        return "\n".join([
            f"submissions {self.submissions}, accepted {self.accepted}, refused {dict(self.refused)}",
            f"finished {finished} of {self.accepted}: {dict(self.statuses)}",
            f"tries per attempt: {dict(sorted(self.tries.items()))}",
            f"outcomes stored per attempt: {dict(Counter(self.stored_per_attempt.values()))}; "
            f"graded twice: {self.graded_twice}",
            f"web traffic: {self.web_requests} requests, non-2xx {dict(self.web_errors)}, "
            f"latency p50 {statistics.median(lat) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms",
            f"events: {'; '.join(self.events)}",
            f"wall time {self.seconds:.0f} s ({self.accepted / max(self.seconds, 1) * 60:.1f} attempts/min)",
        ])


def _browse(running: Rig, figures: Figures, stop: threading.Event, owners: dict[int, str]) -> None:
    """Web traffic next to the submissions: pages, API reads, readiness (bounded by the stop event)."""
    paths = ["/candidate", "/api/scenarios", "/readyz", "/healthz"]
    n = 0
    while not stop.is_set():
        n += 1
        token = running.tokens[0]
        path = paths[n % len(paths)]
        if owners and n % 3 == 0:  # the newest attempt, read by its own candidate
            newest = max(owners)
            path, token = f"/api/attempts/{newest}", owners[newest]
        started = time.perf_counter()
        reply = running.request("GET", path, token=token)
        figures.web_latencies.append(time.perf_counter() - started)
        figures.web_requests += 1
        if not 200 <= reply.status < 300 and path != "/readyz":  # readyz is 503 while the broker is down
            figures.web_errors[reply.status] += 1
        stop.wait(0.2)


def _stored_outcomes(data: Path) -> Counter[int]:
    """How many times each attempt's outcome was stored, from the workers' JSON logs."""
    stored: Counter[int] = Counter()
    for log in data.glob("worker-*.log"):
        for line in log.read_text(errors="replace").splitlines():
            try:
                message = json.loads(line).get("message", "")
            except ValueError:
                continue
            head, _, status = message.partition(": ")
            if head.startswith("attempt ") and status in FINISHED:
                stored[int(head.split()[1])] += 1
    return stored


def run_soak(data: Path, *, submissions: int, timeout: float, log: object = print) -> Figures:
    """Run the whole soak and return its figures (the caller asserts or prints them)."""
    figures = Figures(submissions=submissions)
    with own_postgres() as postgres, own_redis() as broker, rig(
        # One candidate per submission: the app allows one attempt of a kind in flight per user.
        data, database_url=postgres.url, broker_url=broker.url, candidates=submissions, REDISPATCH_AFTER_SECONDS="15",
    ) as running:
        running.start_web()
        running.start_worker(0)
        running.start_worker(1)
        started = time.monotonic()
        ids: list[int] = []
        owners: dict[int, str] = {}
        stop = threading.Event()
        browser = threading.Thread(target=_browse, args=(running, figures, stop, owners), daemon=True)
        browser.start()
        try:
            for n in range(submissions):
                reply = running.submit(n, kind="submit")
                if reply.status == 202:
                    ids.append(reply.body["id"])
                    owners[reply.body["id"]] = running.tokens[n % len(running.tokens)]
                    figures.accepted += 1
                else:
                    figures.refused[reply.status] += 1
                if n == submissions // 3:
                    running.stop_worker(0, sig=signal.SIGKILL)  # a machine lost mid-grading
                    figures.events.append(f"worker 0 killed after {n + 1} submissions")
                    running.start_worker(0)
                if n == (2 * submissions) // 3:
                    broker.stop()
                    figures.events.append(f"broker stopped after {n + 1} submissions")
                    time.sleep(3)
                    broker.start()  # empty: every queued message is gone
                    figures.events.append("broker started again (empty)")
                time.sleep(0.05)
            log(f"{figures.accepted} accepted; waiting for the gradings")  # type: ignore[operator]
            rows = running.wait_finished(ids, timeout=timeout)
        finally:
            stop.set()
            browser.join(timeout=30)
            figures.seconds = time.monotonic() - started
        figures.statuses = Counter(r.status for r in rows)
        figures.tries = Counter(r.tries for r in rows)
        figures.stored_per_attempt = Counter({a: n for a, n in _stored_outcomes(data).items() if a in set(ids)})
    return figures
