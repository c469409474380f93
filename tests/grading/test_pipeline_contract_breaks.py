"""pipeline-v1 files that break the contract are reported as that, with the function named: never as a
planted bug, never as a crash of the grader. Graded for real (the judge/agent split, in a subprocess)."""

from __future__ import annotations

import pytest

from app.engine.builtin import find_builtin
from app.grading.grader import complete_files, grade_files

pytestmark = pytest.mark.slow

SLUG = "padded-truths"


def _broken() -> dict[str, str]:
    package = find_builtin(SLUG)
    assert package is not None
    data, train = package.solution_files["data.py"], package.solution_files["train.py"]
    # collate returns a tuple instead of its dict; evaluate is gone; load_checkpoint cannot read its file
    data = data.replace('    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}',
                        "    return input_ids, attention_mask, labels")
    train = train.replace("def evaluate(model, batches):", "def evaluate_model(model, batches):")
    train = train.replace("    state = torch.load(path, weights_only=True)",
                          "    state = torch.load(path + '.missing', weights_only=True)")
    return {"data.py": data, "train.py": train}


def test_broken_contract_is_named_and_no_planted_bug_is_blamed(runner):
    package = find_builtin(SLUG)
    result = grade_files(package=package, files=_broken(), runner=runner)
    assert result.error is None and result.status == "failed"
    tests = {t.id: t for t in result.tests}
    interface = tests["general.interface"]
    assert interface.status == "failed" and "evaluate(model, batches)" in interface.message
    assert tests["evaluation.token-mean"].status == "not_run"
    assert "evaluate" in (tests["evaluation.token-mean"].reason or "")
    assert tests["loss.padding-ignored"].status == "failed"
    assert "collate did not return a dict" in tests["loss.padding-ignored"].message
    resume = tests["checkpoint.resume-step"]
    assert resume.status == "failed" and "FileNotFoundError" in resume.message and "train.py:" in resume.message
    # The submission changed things no planted bug explains: no bug is credited or blamed on that evidence.
    assert not any(b.fixed for b in result.bugs)
    assert result.score == 0.0


def test_a_submitted_model_py_is_ignored_for_the_scenario_s_own():
    package = find_builtin(SLUG)
    files = complete_files(package, {"model.py": "raise SystemExit('not the scenario model')\n",
                                     "data.py": package.solution_files["data.py"]})
    assert files["model.py"] == package.solution_files["model.py"]
