"""The admin's bug templates for pipeline-v1 (app/scenarios/bug_edits.py): each applies to the template
(padded-truths' solution), touches only data.py or train.py, and plants a bug the grader catches with the
hidden tests the coach knows for its kind (app/coaching/kinds_knowledge.py)."""

from __future__ import annotations

import pytest
from pipeline_styles import FILES, template_files

from app.coaching.kinds_knowledge import KIND_KNOWLEDGE
from app.engine.kinds import BUG_KINDS
from app.engine.measurements import Measurements
from app.engine.pipeline_v1.checks import SPECS, run_checks
from app.engine.shared.verdicts import FAILED
from app.scenarios import bug_edits

KINDS = bug_edits.templates_for("pipeline-v1")
# The probe whose measurements each test reads (by the test id's start): a mutant is measured on these only.
PROBES = {"data.collate": "collate", "loss.": "collate", "data.split": "split", "data.batches": "batches",
          "optimizer.": "optimizer", "training.lr": "schedule", "training.accumulation": "accumulation",
          "training.clip": "accumulation", "training.scaler": "scaler", "evaluation.": "evaluate",
          "checkpoint.": "resume"}


def probes_for(test_ids: tuple[str, ...]) -> list[str]:
    return ["interface", *sorted({probe for t in test_ids for start, probe in PROBES.items() if t.startswith(start)})]


def test_templates_cover_every_pipeline_kind() -> None:
    assert set(KINDS) == {k for k, row in BUG_KINDS.items() if row.startswith("TP-")}


def test_templates_over_several_lines_move_the_clip_and_average_batch_means() -> None:
    solution = template_files()
    moved, where = bug_edits.propose("clip-wrong-place", solution, "pipeline-v1")
    body = moved["train.py"].split("def train_step", 1)[1].split("\ndef ", 1)[0]
    assert body.index("optimizer.step()") < body.index("clip_grad_norm_") < body.index("return total")
    assert body.count("clip_grad_norm_") == 1 and where.startswith("train.py line ")
    means, _ = bug_edits.propose("eval-mean-of-means", solution, "pipeline-v1")
    assert 'total += float(loss_sum(model, batch)) / int((batch["labels"] != IGNORE_INDEX).sum())' in means["train.py"]
    assert "count += 1\n" in means["train.py"]
    assert bug_edits.propose("eval-mean-of-means", {"train.py": "pass\n"}, "pipeline-v1") is None


@pytest.mark.parametrize("kind", KINDS)
def test_template_applies_once_to_data_or_train(kind: str) -> None:
    solution = template_files()
    proposed = bug_edits.propose(kind, solution, "pipeline-v1")
    assert proposed is not None, kind
    files, where = proposed
    assert where.split()[0] in ("data.py", "train.py")
    edits = bug_edits.derive_edits(solution, files)
    assert edits and {e.file for e in edits} <= {"data.py", "train.py"}
    assert all(c.problem is None for c in bug_edits.check_edits(solution, solution, edits))
    assert bug_edits.applies(solution, edits)
    compile(files[edits[0].file], edits[0].file, "exec")
    assert bug_edits.comment_warnings(solution, [(kind, kind, kind, edits)]) == []


@pytest.mark.parametrize("kind", KINDS)
def test_template_planted_bug_is_caught(kind: str, pipeline_measure, pipeline_reference: dict) -> None:
    proposed = bug_edits.propose(kind, template_files(), "pipeline-v1")
    assert proposed is not None
    tests = KIND_KNOWLEDGE[kind].tests
    assert set(tests) <= set(SPECS)
    result = pipeline_measure(proposed[0], probes=probes_for(tests))
    assert result["error"] is None, result["error"]
    found = {v.id: (v.status, v.message) for v in run_checks(Measurements.from_json(result),
                                                             Measurements.from_json(pipeline_reference), files=FILES)}
    assert found["general.interface"][0] != FAILED, found["general.interface"]
    caught = {t: found[t] for t in tests if found[t][0] == FAILED}
    assert caught, {t: found[t] for t in tests}
