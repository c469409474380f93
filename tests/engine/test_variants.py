"""Correct fixes written differently from the solution pass every test, including the training band."""

from __future__ import annotations

import pytest
from variants import CORRECT_VARIANTS

from app.engine.gpt_v1.checks import run_checks
from app.engine.measurements import Measurements


@pytest.mark.parametrize("variant", CORRECT_VARIANTS, ids=[v.name for v in CORRECT_VARIANTS])
def test_correct_variant_passes_every_test(variant, measure, reference):
    result = measure(variant.files())
    assert result["error"] is None
    verdicts = run_checks(Measurements.from_json(result), Measurements.from_json(reference),
                          files=("model.py", "data.py"))
    failed = {v.id: v.message for v in verdicts if not v.passed}
    assert failed == {}
    run = result["probes"]["training_run"]
    assert abs(run["final_val_loss"] - reference["probes"]["training_run"]["final_val_loss"]) < 0.2


def test_renamed_parameters_make_equivalence_not_applicable(measure, reference):
    sinusoidal = next(v for v in CORRECT_VARIANTS if v.name == "sinusoidal-scaled")
    result = measure(sinusoidal.files(), probes=["equivalence"])
    candidate, baseline = Measurements.from_json(result), Measurements.from_json(reference)
    verdicts = {v.id: v for v in run_checks(candidate, baseline, files=("model.py", "data.py"))}
    for test_id in ("equivalence.logits", "equivalence.last-position"):
        assert verdicts[test_id].passed and not verdicts[test_id].applicable
        assert verdicts[test_id].message.startswith("not applicable")
