"""Prometheus metrics: requests by route template, grading time by stage, grading errors by kind,
and, read from the database at scrape time, the queue depth and attempts by status.

The web process serves them at /metrics (admins only: a cookie session or an admin's bearer token)
and, with METRICS_PORT, on a separate plain port bound to 127.0.0.1. A `dojo worker` with
METRICS_PORT serves its pool processes' figures (Prometheus multiprocess mode) on that port.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector

from app.grading.result import GradeError
from app.sandbox.progress import Progress, ProgressCallback

log = logging.getLogger(__name__)

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
GRADING_BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300)

HTTP_REQUESTS = Counter("dojo_http_requests_total", "HTTP requests answered", ["method", "route", "status"])
HTTP_SECONDS = Histogram("dojo_http_request_seconds", "HTTP request latency", ["method", "route"],
                         buckets=LATENCY_BUCKETS)
GRADING_SECONDS = Histogram("dojo_grading_seconds", "Time spent per grading stage", ["stage"],
                            buckets=GRADING_BUCKETS)
GRADINGS = Counter("dojo_gradings_total", "Gradings finished, by outcome", ["status"])
GRADING_ERRORS = Counter("dojo_grading_errors_total", "Gradings that ended in an error, by kind", ["kind"])
DISPATCH_FAILURES = Counter("dojo_dispatch_failures_total", "Sends to the broker that failed")


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    HTTP_REQUESTS.labels(method, route, str(status)).inc()
    HTTP_SECONDS.labels(method, route).observe(seconds)


def observe_outcome(status: str, error: GradeError | None) -> None:
    """Count a finished grading; an error is counted by its kind (timeout, memory, sandbox, ...)."""
    GRADINGS.labels(status).inc()
    if error is not None:
        GRADING_ERRORS.labels(error.kind or "unknown").inc()


class StageClock:
    """Wraps a grading's progress callback and times each stage it reports, until close()."""

    def __init__(self, forward: ProgressCallback | None = None) -> None:
        self.forward = forward
        self.stage: str | None = None
        self.since = time.monotonic()
        self.started = self.since

    def __call__(self, progress: Progress) -> None:
        stage = progress.stage
        if stage and stage != self.stage:
            self._close_stage()
            self.stage, self.since = stage, time.monotonic()
        if self.forward is not None:
            self.forward(progress)

    def _close_stage(self) -> None:
        if self.stage is not None:
            GRADING_SECONDS.labels(self.stage).observe(time.monotonic() - self.since)

    def close(self) -> None:
        self._close_stage()
        self.stage = None
        GRADING_SECONDS.labels("total").observe(time.monotonic() - self.started)


class DatabaseCollector(Collector):
    """Queue depth and attempts by status, counted in the database when Prometheus scrapes."""

    def collect(self) -> Iterator[Metric]:
        from sqlalchemy import func, select

        from app.attempts.models import Attempt
        from app.core.db import new_session

        attempts = GaugeMetricFamily("dojo_attempts", "Attempts by status", labels=["status"])
        depth = GaugeMetricFamily("dojo_queue_depth", "Attempts waiting to be graded")
        try:
            with new_session() as session:
                counts = dict(session.execute(select(Attempt.status, func.count()).group_by(Attempt.status)).all())
        except Exception:  # the database is down: report no figures rather than fail the scrape
            log.warning("metrics: database unavailable; attempt figures left out")
            return
        for status in ("queued", "running", "passed", "failed", "error"):
            attempts.add_metric([status], counts.get(status, 0))
        depth.add_metric([], counts.get("queued", 0))
        yield attempts
        yield depth


_db_collector: DatabaseCollector | None = None


def web_registry() -> CollectorRegistry:
    """The default registry plus the database figures (registered once per process)."""
    global _db_collector
    if _db_collector is None:
        _db_collector = DatabaseCollector()
        REGISTRY.register(_db_collector)
    return REGISTRY


def render(registry: CollectorRegistry | None = None) -> bytes:
    return generate_latest(registry or web_registry())


def start_metrics_server(port: int, registry: CollectorRegistry | None = None) -> None:
    """Serve the metrics on 127.0.0.1:port in a background thread (no authentication: keep it local)."""
    from prometheus_client import start_http_server

    start_http_server(port, addr="127.0.0.1", registry=registry or web_registry())
    log.info("metrics on http://127.0.0.1:%d/metrics", port)


def multiprocess_registry() -> CollectorRegistry:
    """For a `dojo worker`: the figures its forked pool processes write to PROMETHEUS_MULTIPROC_DIR."""
    from prometheus_client import multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return registry


def prepare_multiprocess_dir() -> None:
    """Point prometheus-client at a fresh directory before it is imported by the worker's children."""
    import tempfile

    # A write, not a settings read: prometheus-client reads this variable from the environment itself,
    # in this process and in the children it forks, so it must be in os.environ before they start.
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="dojo-metrics-"))


