"""The schedule checks on get_lr's values as the judge records them: the warmup styles contract 1c allows
pass, the planted schedule bugs fail."""

from __future__ import annotations

import math

import pytest

from app.engine.measurements import Measurements
from app.engine.pipeline_v1 import checks_training as trn
from app.engine.shared.verdicts import Fail

W, M, TOP, LOW = 10, 50, 3e-3, 3e-4


def _cosine(step: int, horizon: int = M) -> float:
    if step > M:
        return LOW
    return LOW + 0.5 * (1 + math.cos(math.pi * (step - W) / (horizon - W))) * (TOP - LOW)


def _readings(warmup) -> Measurements:
    lr = [warmup(s) if s < W else _cosine(s) for s in range(M + 6)]
    schedule = {"warmup": W, "max_steps": M, "max_lr": TOP, "min_lr": LOW, "lr": lr,
                "expected_after_warmup": [_cosine(s) for s in range(W, M + 6)]}
    return Measurements.from_json({"schema": "dojo.pipeline-v1.result/1", "error": None,
                                   "probes": {"schedule": {"schedules": [schedule]}}})


@pytest.mark.parametrize("warmup", [lambda s: TOP * (s + 1) / (W + 1), lambda s: TOP * (s + 1) / W],
                         ids=["reaches-max-at-warmup", "reaches-max-one-step-early"])
def test_warmup_styles_that_reach_max_lr_by_warmup_steps_pass(warmup):
    readings = _readings(warmup)
    assert trn.lr_warmup(readings, readings)
    assert trn.lr_cosine(readings, readings)


def test_a_warmup_from_zero_fails_the_warmup_only():
    readings = _readings(lambda s: TOP * s / W)
    with pytest.raises(Fail, match="at step 0"):
        trn.lr_warmup(readings, readings)
    assert trn.lr_cosine(readings, readings)


def test_a_cosine_over_the_wrong_horizon_fails_the_cosine_only():
    readings = _readings(lambda s: TOP * (s + 1) / (W + 1))
    readings.probes["schedule"]["schedules"][0]["lr"][W:M + 1] = [_cosine(s, horizon=M + W) for s in range(W, M + 1)]
    assert trn.lr_warmup(readings, readings)
    with pytest.raises(Fail, match="half cosine"):
        trn.lr_cosine(readings, readings)
