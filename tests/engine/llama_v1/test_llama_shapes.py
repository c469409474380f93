"""Correct llama-v1 code in other shapes (of model.py, and of train.py) passes every check; catalog rows
written into those shapes by hand are still caught."""

from __future__ import annotations

import pytest
from llama_shapes import (
    CORRECT_SHAPES,
    CORRECT_TRAIN_SHAPES,
    META_CACHE_FROM_ZERO,
    OTHER_SHAPE_BUGS,
)
from llama_variants import probes_for
from test_template import statuses

from app.engine.builtin import builtin_packages
from app.engine.kinds import BUG_KINDS
from app.engine.shared.verdicts import FAILED, NOT_APPLICABLE, PASSED

# Structure another design may lack: the equivalence tier needs the template's parameter names;
# probability rows need F.softmax; the initial loss is judged against ln V only when the model returns a loss
# its own logits do not give (PyTorch's default initialisation starts further from ln V).
MAY_NOT_APPLY = {"equivalence.logits", "equivalence.last-position", "attention.rows-sum-to-one",
                 "attention.rows-zero-on-future", "loss.init-near-ln-v"}
# Found by tracing, whatever the shape: never "not applicable" here.
TRACED = ("attention.score-scale", "positional.rotary-frequencies", "positional.rotation-keeps-norm",
          "general.rmsnorm", "general.rmsnorm-eps", "general.swiglu-gate", "generation.cache-kv-heads",
          "general.mlp-nonlinear", "general.final-norm", "general.block-residual-identity",
          "positional.rotary-frequency-set", "positional.values-carry-no-position", "positional.rotary-in-decode",
          "generation.decode-own-key", "generation.decode-weighs-every-key", "generation.chunk-mask")


@pytest.mark.parametrize("shape", CORRECT_SHAPES + CORRECT_TRAIN_SHAPES,
                         ids=[s.name for s in CORRECT_SHAPES + CORRECT_TRAIN_SHAPES])
def test_correct_shape_passes_every_test(shape, llama_measure, llama_reference):
    result = llama_measure(shape.files())
    assert result["error"] is None
    found = statuses(result, llama_reference)
    wrong = {k: v for k, v in found.items() if v[0] != PASSED and not (v[0] == NOT_APPLICABLE and k in MAY_NOT_APPLY)}
    assert wrong == {}
    assert {t: found[t] for t in TRACED if found[t][0] != PASSED} == {}


def test_cache_assuming_position_zero_fails_shift_only(llama_measure, llama_reference):
    tests = [*META_CACHE_FROM_ZERO.detected_by, "generation.cache-matches-full-forward",
             "generation.cache-chunk-after-prefix"]
    result = llama_measure(META_CACHE_FROM_ZERO.files(), probes=probes_for(tests))
    found = statuses(result, llama_reference)
    assert found["positional.shift-invariant"][0] == FAILED
    assert found["generation.cache-matches-full-forward"][0] == PASSED
    assert found["generation.cache-chunk-after-prefix"][0] == PASSED


@pytest.mark.parametrize("bug", OTHER_SHAPE_BUGS, ids=[b.name for b in OTHER_SHAPE_BUGS])
def test_row_written_into_another_shape_is_caught(bug, llama_measure, llama_reference):
    result = llama_measure(bug.files(), probes=probes_for(bug.detected_by))
    assert result["error"] is None
    found = statuses(result, llama_reference)
    assert {t: found[t] for t in bug.detected_by if found[t][0] != FAILED} == {}


def test_other_shapes_cover_every_llama_kind_of_the_builtins():
    """Each catalog row a llama-v1 built-in plants is also written by hand into another shape (above)."""
    covered = {b.name.split("-")[0] for b in OTHER_SHAPE_BUGS}
    rows = {_row(bug.kind) for pkg in builtin_packages() if pkg.interface == "llama-v1" for bug in pkg.bugs}
    assert rows - covered == set()


def _row(kind: str) -> str:
    """The catalog row of a bug kind: "H38 RoPE ignores ..." -> "38"; section C's scale (15) is row 50 here."""
    label = BUG_KINDS[kind].split()[0]
    return "50" if label == "C15" else label.lstrip("ABCDEFGH")
