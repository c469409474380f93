"""Web latency under concurrent clients: the signed-in dashboard and GET /api/attempts/{id}."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field

from app.bench.http import Client
from app.bench.pipeline import percentile


@dataclass
class WebLoad:
    requests: int
    seconds: float
    errors: int
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def p95_ms(self, path: str | None = None) -> float:
        values = self.latencies_ms[path] if path else [v for vs in self.latencies_ms.values() for v in vs]
        return percentile(values, 0.95)


def _client_for(label: str, *, page: Client, api: Client) -> Client:
    """A label starting with "api" is requested with the bearer token, the others with the cookies."""
    return api if label.startswith("api") else page


def web_load(*, host: str, ports: list[int], cookies: dict[str, str], token: str, paths: dict[str, str],
             clients: int = 20, seconds: float = 15.0, pause: float = 0.0, ramp: float = 0.0) -> WebLoad:  # fmt: skip
    """`clients` threads, each on its own keep-alive connection, request the paths in turn without pause
    (or `pause` seconds after each request; then the clients start at random moments within one pause).

    Client k talks to ports[k % len(ports)] (several web processes of one install, as a load balancer
    would spread the clients). paths maps a label to a path; a label starting with "api" is requested
    with the bearer token, the others with the session cookies. Every request is timed from send to
    the last byte read; with `ramp`, the requests of the first `ramp` seconds are not counted.
    """
    latencies: dict[str, list[float]] = {label: [] for label in paths}
    errors = [0]
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)
    stop_at, count_from = [0.0], [0.0]

    def run(port: int) -> None:
        page = Client(host, port, cookies=dict(cookies))
        api = Client(host, port, token=token)
        mine: dict[str, list[float]] = {label: [] for label in paths}
        failed = 0
        start.wait()
        time.sleep(random.uniform(0, pause))
        try:
            while time.monotonic() < stop_at[0]:
                for label, path in paths.items():
                    client = _client_for(label, page=page, api=api)
                    try:
                        response = client.get(path)
                    except Exception:
                        failed += 1
                        continue
                    if time.monotonic() >= count_from[0]:
                        mine[label].append(response.seconds * 1000)
                    time.sleep(pause)
        finally:
            page.close()
            api.close()
            with lock:
                for label, values in mine.items():
                    latencies[label].extend(values)
                errors[0] += failed

    threads = [threading.Thread(target=run, args=(ports[k % len(ports)],), daemon=True) for k in range(clients)]
    for thread in threads:
        thread.start()
    count_from[0] = time.monotonic() + ramp
    stop_at[0] = count_from[0] + seconds
    began = count_from[0]
    start.wait()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    total = sum(len(v) for v in latencies.values())
    return WebLoad(requests=total, seconds=elapsed, errors=errors[0], latencies_ms=latencies)


def one_at_a_time(*, host: str, port: int, cookies: dict[str, str], token: str, paths: dict[str, str],
                  count: int = 50) -> dict[str, float]:  # fmt: skip
    """Median milliseconds of `count` requests per path sent one after another: the cost of a request
    on its own, without the queueing of the concurrent load."""
    page, api = Client(host, port, cookies=dict(cookies)), Client(host, port, token=token)
    try:
        return {label: percentile([_client_for(label, page=page, api=api).get(path).seconds * 1000
                                   for _ in range(count)], 0.5)
                for label, path in paths.items()}  # fmt: skip
    finally:
        page.close()
        api.close()
