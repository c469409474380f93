"""The benchmark's report, as `dojo bench` and `dojo bench --only watchers` print it."""

from __future__ import annotations

import time
from dataclasses import dataclass

from app.bench.watchers import WatchersFigure


@dataclass(frozen=True)
class BenchReport:
    """What the benchmark reports: the headline figures (numbers), the watchers figure, and the details
    the JSON report keeps for the record."""

    figures: dict[str, float | None]
    watchers: WatchersFigure
    details: dict[str, object]
    measured_at: str

    def to_json(self) -> dict[str, object]:
        """The --json report: the figures, then the details and the time of measurement."""
        return {**self.figures, "details": self.details, "measured_at": self.measured_at}


def measured_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
