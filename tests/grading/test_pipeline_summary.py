"""pipeline-v1's accumulation, schedule and resume probes become GradeResult.pipeline, yours and the reference's."""

from __future__ import annotations

from typing import Any

from app.engine.measurements import Measurements
from app.grading.grader import pipeline_summary
from app.grading.result import AccumulationSplit, GradeResult

SPLITS = [{"micro_batches": k, "norm_ratio": 1.0, "diff": 0.0} for k in (1, 2, 4, 8)]
HALVED = [{"micro_batches": k, "norm_ratio": 1 / k, "diff": 1 - 1 / k} for k in (1, 2, 4, 8)]
SCHEDULES = {"schedules": [{"warmup": 1, "max_steps": 3, "max_lr": 1.0, "min_lr": 0.1, "lr": [0.5, 1.0, 0.55, 0.1],
                            "expected_after_warmup": [1.0, 0.55, 0.1]},
                           {"warmup": 10, "max_steps": 50, "max_lr": 3e-3, "min_lr": 3e-4, "error": "never drawn"}]}
LOSSES = [[s, 4.0 - 0.1 * s] for s in range(8)]
RESUME = {"steps": 8, "saved_at": 4, "returned": 4, "final_diff": 0.0, "uninterrupted_losses": LOSSES,
          "resumed_losses": LOSSES}


def _measured(**probes: Any) -> Measurements:
    return Measurements.from_json({"schema": "test", "probes": probes})


REFERENCE = _measured(accumulation={"cases": {}, "splits": SPLITS}, schedule=SCHEDULES, resume=RESUME)


def test_a_pipeline_grading_carries_the_three_charts_data() -> None:
    found = pipeline_summary(_measured(accumulation={"cases": {}, "splits": HALVED}, schedule=SCHEDULES,
                                       resume=RESUME), REFERENCE)
    assert found is not None and found.accumulation is not None and found.baseline_accumulation is not None
    assert found.accumulation.splits[2] == AccumulationSplit(micro_batches=4, norm_ratio=0.25, diff=0.75)
    assert found.baseline_accumulation.splits[2].norm_ratio == 1.0
    assert found.schedule is not None and found.schedule.lr == [0.5, 1.0, 0.55, 0.1]  # the first schedule
    assert (found.schedule.warmup, found.schedule.max_steps) == (1, 3)
    assert found.resume is not None and found.resume.saved_at == 4 and found.resume.resumed[5] == (5, 3.5)


def test_probes_that_raised_keep_their_message_and_missing_ones_stay_none() -> None:
    found = pipeline_summary(_measured(accumulation={"exception": "RuntimeError: boom (train.py:3)"},
                                       schedule={"exception": "NameError: math (train.py:9)"}), REFERENCE)
    assert found is not None and found.accumulation is not None and found.schedule is not None
    assert found.accumulation.error == "RuntimeError: boom (train.py:3)" and found.accumulation.splits == []
    assert found.schedule.error == "NameError: math (train.py:9)"
    assert found.resume is None and found.baseline_resume is not None


def test_other_interfaces_get_none_even_with_a_probe_of_the_same_name() -> None:
    llama_like = _measured(accumulation={"returned": 3.2, "diff": 0.0})
    assert pipeline_summary(llama_like, llama_like) is None
    assert pipeline_summary(_measured(), _measured()) is None
    # the reference's own probe raised: nothing to chart against
    assert pipeline_summary(REFERENCE, _measured(resume={"exception": "x"})) is None


def test_results_stored_before_read_back_and_new_ones_round_trip() -> None:
    old = GradeResult.from_stored({"status": "failed", "training": {"steps": [0], "val_loss": [4.1]}})
    assert old is not None and old.pipeline is None
    found = pipeline_summary(_measured(accumulation={"splits": HALVED}, schedule=SCHEDULES, resume=RESUME), REFERENCE)
    again = GradeResult.from_stored(GradeResult(status="failed", pipeline=found).to_dict())
    assert again is not None and again.pipeline == found
