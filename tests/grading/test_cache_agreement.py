"""The cache_curve probe (llama-v1) becomes TrainingSummary.cache_agreement, the candidate's and the baseline's."""

from __future__ import annotations

import math
from typing import Any

from app.engine.builtin import find_builtin
from app.engine.measurements import Measurements
from app.grading.grader import cache_agreement, grade_files, training_summary
from app.grading.result import CacheAgreement, GradeResult

ROPE_SLICE = "rot = self.rope[start_pos : start_pos + T]"
RUN = {"steps": [0, 10], "train_loss": [None, 3.0], "val_loss": [4.1, 3.2], "final_val_loss": 3.2,
       "final_train_loss": 3.0, "init_loss": 4.1}
BROKEN_DIFFS: list[float | None] = [1e-7, 2e-7, 1e-7, 3e-7, 1.9, 2.4, 2.2, 2.8]
CORRECT_DIFFS: list[float | None] = [1e-7, 2e-7, 1e-7, 3e-7, 2e-7, 1e-7, 4e-7, 2e-7]
BROKEN = {"prefill": 4, "diffs": BROKEN_DIFFS}
CORRECT = {"prefill": 4, "diffs": CORRECT_DIFFS}


def _measured(**probes: Any) -> Measurements:
    return Measurements.from_json({"schema": "test", "probes": {"training_run": RUN, **probes}})


def test_a_llama_grading_carries_both_cache_curves() -> None:
    summary = training_summary(_measured(cache_curve=BROKEN), _measured(cache_curve=CORRECT))
    assert summary is not None
    assert summary.cache_agreement == CacheAgreement(prefill=4, diffs=BROKEN_DIFFS)
    assert summary.baseline_cache_agreement == CacheAgreement(prefill=4, diffs=CORRECT_DIFFS)


def test_a_gpt_grading_has_no_cache_curve() -> None:
    summary = training_summary(_measured(), _measured())
    assert summary is not None
    assert summary.cache_agreement is None and summary.baseline_cache_agreement is None


def test_a_cached_forward_that_raised_keeps_its_message() -> None:
    summary = training_summary(_measured(cache_curve={"exception": "IndexError: out of range (model.py:88)"}),
                               _measured(cache_curve=CORRECT))
    assert summary is not None and summary.cache_agreement is not None
    assert summary.cache_agreement.error == "IndexError: out of range (model.py:88)"
    assert summary.cache_agreement.diffs == []


def test_non_finite_diffs_survive_and_malformed_readings_are_dropped() -> None:
    found = cache_agreement({"prefill": 4, "diffs": [0.0, "nan", "inf"]})
    assert found is not None and found.diffs[0] == 0.0 and math.isnan(found.diffs[1] or 0.0)
    assert found.diffs[2] == math.inf
    assert cache_agreement({"prefill": 4}) is None
    assert cache_agreement({"prefill": "four", "diffs": "many"}) is None
    assert cache_agreement(None) is None and cache_agreement({}) is None


def test_results_stored_before_the_cache_curve_read_back_and_new_ones_round_trip() -> None:
    old = GradeResult.from_stored({"status": "failed", "training": {"steps": [0], "val_loss": [4.1]}})
    assert old is not None and old.training is not None
    assert old.training.cache_agreement is None and old.training.baseline_cache_agreement is None
    summary = training_summary(_measured(cache_curve=BROKEN), _measured(cache_curve=CORRECT))
    stored = GradeResult(status="failed", training=summary).to_dict()
    again = GradeResult.from_stored(stored)
    assert again is not None and again.training == summary


def test_a_real_llama_grading_whose_rotary_ignores_the_cache_offset(runner: Any) -> None:
    """norm-and-gate's solution with the rotary angles sliced from 0 in every call: the full forward is right,
    each decoded token is rotated as if at position 0, so the curve leaves 0 right after the prefill."""
    package = find_builtin("norm-and-gate")
    assert package is not None
    solution = package.solution_files["model.py"]
    assert ROPE_SLICE in solution
    report = grade_files(package=package, runner=runner,
                         files={"model.py": solution.replace(ROPE_SLICE, "rot = self.rope[:T]")})
    assert report.training is not None
    yours, baseline = report.training.cache_agreement, report.training.baseline_cache_agreement
    assert yours is not None and baseline is not None and yours.error is None
    assert yours.prefill == baseline.prefill == 4 and len(yours.diffs) == len(baseline.diffs) == 32
    assert max(d or 0.0 for d in yours.diffs[:4]) < 1e-4  # the prefill itself is right
    assert min(d or 0.0 for d in yours.diffs[4:]) > 1e-3
    assert max(d or 0.0 for d in baseline.diffs) < 1e-4
