"""The interface is checked first: a deviation is named with what gpt-v1 expects and the tests that rely
on it are not run (never failed with a misleading symptom); a crashed training run leaves its tests not
run with the crash as the reason."""

from __future__ import annotations

from variants import shape_files, solution_files

from app.engine.gpt_v1.checks import run_checks
from app.engine.measurements import Measurements
from app.engine.shared.verdicts import FAILED, NOT_RUN, PASSED

TRAIN_FILES = ("model.py", "data.py", "train.py")


def _verdicts(result: dict, reference: dict, files=("model.py", "data.py")) -> dict:
    return {v.id: v for v in run_checks(Measurements.from_json(result), Measurements.from_json(reference), files=files)}


def test_nanogpt_model_is_told_what_the_interface_expects(measure, reference):
    verdicts = _verdicts(measure(shape_files("nanogpt")), reference)
    interface = verdicts["general.interface"]
    assert interface.status == FAILED and interface.public
    assert "model(idx) to return (logits, None) with logits of shape (B, T, vocab_size)" in interface.message
    assert "it returned logits of shape (2, 1, 37)" in interface.message
    assert "generate(idx, max_new_tokens, temperature=1.0, top_k=None, generator=None)" in interface.message
    assert "unexpected keyword argument 'generator'" in interface.message
    for test_id in ("attention.causal-perturb", "attention.causal-gradient", "positional.depends-on-position",
                    "attention.no-batch-mixing", "equivalence.logits"):
        assert verdicts[test_id].status == NOT_RUN
        assert "(B, T, vocab_size)" in verdicts[test_id].reason
        assert not verdicts[test_id].applicable and not verdicts[test_id].passed
    generation = {k: v for k, v in verdicts.items() if k.startswith("generation.")}
    assert generation and all(v.status == NOT_RUN and "generator=None" in v.reason for v in generation.values())
    # no symptom the model does not have: it is causal, knows positions and trains like the baseline
    claims = " ".join(v.message for v in verdicts.values() if v.status == FAILED)
    assert "future" not in claims and "positions apart" not in claims
    assert verdicts["training.learns"].status == PASSED
    assert verdicts["attention.score-scale"].status == PASSED
    assert verdicts["equivalence.last-position"].status == PASSED


def test_config_without_dropout_leaves_every_model_test_not_run(measure, reference):
    files = solution_files()
    files["model.py"] = files["model.py"].replace("    dropout: float = 0.0\n", "")
    verdicts = _verdicts(measure(files), reference)
    assert verdicts["general.interface"].status == FAILED
    assert "exactly the keyword arguments" in verdicts["general.interface"].message
    assert "unexpected keyword argument 'dropout'" in verdicts["general.interface"].message
    model_tests = [v for k, v in verdicts.items() if not k.startswith("data.") and k != "general.interface"]
    assert model_tests and all(v.status == NOT_RUN for v in model_tests), [
        v.id for v in model_tests if v.status != NOT_RUN]
    assert verdicts["data.targets-next-token"].status == PASSED


def test_get_batch_returning_time_major_batches_is_an_interface_deviation(measure, reference):
    files = solution_files()
    files["data.py"] = files["data.py"].replace("    return x, y\n", "    return x.t(), y.t()\n")
    verdicts = _verdicts(measure(files, probes=["interface", "get_batch_targets", "get_batch_coverage"]), reference)
    message = verdicts["general.interface"].message
    assert "get_batch(data, block_size, batch_size, generator) to return (x, y), each of shape" in message
    assert "with block_size=8 and batch_size=6 it returned x (8, 6) and y (8, 6)" in message
    assert verdicts["data.targets-next-token"].status == NOT_RUN
    assert verdicts["data.windows-cover-data"].status == NOT_RUN
    assert verdicts["data.get-batch-shapes"].status == FAILED  # the shapes test reports what it measured


def test_train_py_without_evaluate_leaves_only_its_tests_not_run(measure, reference):
    files = solution_files(with_train=True)
    files["train.py"] = files["train.py"].replace("def evaluate(model, batches):", "def validate(model, batches):")
    probes = ["interface", "train_step_gradients", "train_step_clipping", "evaluate_mode"]
    verdicts = _verdicts(measure(files, probes=probes), reference, TRAIN_FILES)
    assert "train.py to define evaluate(model, batches)" in verdicts["general.interface"].message
    assert verdicts["training.evaluate-eval-mode"].status == NOT_RUN
    assert verdicts["training.evaluate-mean"].status == NOT_RUN
    assert verdicts["training.step-gradients"].status == PASSED


def test_crashed_training_run_leaves_its_tests_not_run_with_the_crash(measure, reference):
    """A get_batch whose targets are a strided view, with a model that calls targets.view(-1): the
    probes pass, the tiny training run crashes."""
    files = shape_files("heads_loop")
    files["data.py"] = files["data.py"].replace("windows[:, 1:].contiguous()", "windows[:, 1:]")
    verdicts = _verdicts(measure(files), reference)
    runs = verdicts["training.runs"]
    assert runs.status == FAILED and "the tiny training run stopped with RuntimeError: view size" in runs.message
    for test_id in ("training.finite", "training.learns", "training.not-too-good"):
        assert verdicts[test_id].status == NOT_RUN
        assert verdicts[test_id].reason.startswith("the tiny training run stopped with RuntimeError")
    assert verdicts["attention.causal-perturb"].status == PASSED
    assert verdicts["attention.random-token-leak"].status == PASSED  # its own run uses the harness's batches
