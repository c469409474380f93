"""Test definitions and the verdict record that checks produce."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from app.engine.measurements import Measurements, ProbeReadings


@dataclass(frozen=True)
class TestSpec:
    """A stable test id, its component, and whether candidates see it on a public run."""

    id: str
    component: str
    public: bool
    title: str
    tier: str = "behaviour"  # behaviour | equivalence
    needs_train: bool = False
    # Interface items and runs the measurement relies on (see checks_interface.NEEDS); when one is
    # unmet or crashed, the test is not run instead of failing with a misleading symptom.
    needs: tuple[str, ...] = ()


# Verdict statuses: only "failed" is evidence that something is wrong, only "passed" that it is right.
PASSED, FAILED, NOT_APPLICABLE, NOT_RUN = "passed", "failed", "not_applicable", "not_run"


@dataclass
class Verdict:
    id: str
    component: str
    passed: bool
    message: str
    applicable: bool = True
    public: bool = False
    status: str = ""  # derived from passed/applicable unless NOT_RUN
    reason: str | None = None  # why the test was not run

    def __post_init__(self) -> None:
        if not self.status:
            self.status = (PASSED if self.passed else FAILED) if self.applicable else NOT_APPLICABLE

    def to_dict(self) -> dict[str, str | bool | None]:
        return {"id": self.id, "component": self.component, "passed": self.passed,
                "message": self.message, "applicable": self.applicable, "public": self.public,
                "status": self.status, "reason": self.reason}


class Fail(Exception):
    """Raised inside a check with the symptom to report."""


class NotApplicable(Exception):
    """Raised inside a check when the test cannot apply to this candidate (never a failure)."""


def num(value: Any) -> float:
    """A measured number; strings 'nan'/'inf' written by the harness become floats."""
    if value is None:
        return math.nan
    return float(value)


def probe(result: Measurements, name: str) -> ProbeReadings:
    """The readings of one probe, or Fail with the exception the candidate's code raised."""
    data = result.readings(name)
    if data is None:
        raise Fail("this check could not run: an earlier step did not produce measurements")
    if "exception" in data:
        raise Fail(f"the code raised {data['exception']}")
    return data


def close(a: float, b: float, *, rel: float, floor: float = 1.0) -> bool:
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= rel * (floor + abs(b))
