"""Submit to verdict through the API of a running server: latency of one, throughput of many."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from app.bench.http import Client

FINISHED = ("passed", "failed", "error", "cancelled")
POLL_SECONDS = 0.05  # one submission's latency: fine-grained
# A batch is polled as the workspace polls (every 400 ms): on two cores, polling each attempt every 50 ms
# would spend CPU in the web process that the graders being measured need.
BATCH_POLL_SECONDS = 0.4


@dataclass(frozen=True)
class Verdict:
    attempt_id: int
    status: str
    seconds: float  # from the submit request to the first poll that saw the verdict


def submit(client: Client, *, scenario: str, files: dict[str, str], kind: str = "submit") -> int:
    """POST /api/attempts; the attempt id."""
    body = {"scenario": scenario, "kind": kind, "files": files}
    return int(client.post_json("/api/attempts", body, expect=(202,)).json()["id"])


def wait_verdict(client: Client, attempt_id: int, *, since: float, timeout: float = 1800.0,
                 poll: float = POLL_SECONDS) -> Verdict:  # fmt: skip
    """Poll GET /api/attempts/{id} every `poll` seconds until it is finished."""
    while time.monotonic() - since < timeout:
        status = client.get(f"/api/attempts/{attempt_id}").json()["status"]
        if status in FINISHED:
            return Verdict(attempt_id, status, time.monotonic() - since)
        time.sleep(poll)
    raise TimeoutError(f"attempt {attempt_id} had no verdict after {timeout:.0f} s")


def submit_and_wait(client: Client, *, scenario: str, files: dict[str, str]) -> Verdict:
    """One submission's latency: API submit to verdict."""
    started = time.monotonic()
    attempt_id = submit(client, scenario=scenario, files=files)
    return wait_verdict(client, attempt_id, since=started)


def sequential_latencies(client: Client, *, scenario: str, files: dict[str, str], count: int,
                         pause: float) -> list[Verdict]:  # fmt: skip
    """`count` submissions one after another, `pause` seconds apart (a person reads the verdict first)."""
    verdicts = []
    for _ in range(count):
        time.sleep(pause)
        verdicts.append(submit_and_wait(client, scenario=scenario, files=files))
    return verdicts


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (share in 0..1) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(share * len(ordered) + 0.5)))
    return ordered[rank - 1]


def median(values: list[float]) -> float:
    return statistics.median(values)


@dataclass(frozen=True)
class Throughput:
    count: int
    seconds: float
    statuses: dict[str, int]

    @property
    def per_minute(self) -> float:
        return self.count / self.seconds * 60


def throughput(clients: list[Client], *, scenario: str, files: dict[str, str], count: int) -> Throughput:
    """Submit `count` attempts at once (spread over the clients' users) and time until all have verdicts."""
    started = time.monotonic()
    ids = [(clients[n % len(clients)], submit(clients[n % len(clients)], scenario=scenario, files=files))
           for n in range(count)]  # fmt: skip
    statuses: dict[str, int] = {}
    for client, attempt_id in ids:
        verdict = wait_verdict(client, attempt_id, since=started, poll=BATCH_POLL_SECONDS)
        statuses[verdict.status] = statuses.get(verdict.status, 0) + 1
    return Throughput(count=count, seconds=time.monotonic() - started, statuses=statuses)
