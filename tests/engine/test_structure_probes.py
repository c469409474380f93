"""The structure and loss self-consistency tests: they separate bugs that share older tests, apply to
differently written correct models, and say "not applicable" when the structure is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from variants import CORRECT_VARIANTS, solution_files

from app.engine.gpt_v1.checks import run_checks
from app.engine.measurements import Measurements
from app.engine.package import load_package

BUILTIN = Path(__file__).resolve().parents[2] / "app" / "scenarios_builtin"
STRUCTURE_PROBES = ["attention_rows", "attention_scale", "block_identity", "mlp_nonlinearity", "final_norm"]
NEW_TESTS = ("attention.rows-sum-to-one", "attention.rows-zero-on-future", "attention.score-scale",
             "general.block-residual-identity", "general.mlp-nonlinear", "loss.rewards-own-target",
             "loss.mean-over-positions",
             "loss.padding-matches-shorter")


def _verdicts(result: dict, reference: dict, files=("model.py", "data.py")) -> dict:
    return {v.id: v for v in run_checks(Measurements.from_json(result), Measurements.from_json(reference), files=files)}


def _new_failures(result: dict, reference: dict, files) -> set[str]:
    verdicts = _verdicts(result, reference, files)
    return {t for t in NEW_TESTS if not verdicts[t].passed}


def test_sdpa_variant_reports_probability_rows_not_applicable(measure, reference):
    sdpa = next(v for v in CORRECT_VARIANTS if v.name == "sdpa")
    verdicts = _verdicts(measure(sdpa.files(), probes=STRUCTURE_PROBES), reference)
    for test_id in ("attention.rows-sum-to-one", "attention.rows-zero-on-future"):
        rows = verdicts[test_id]
        assert rows.passed and not rows.applicable and rows.message.startswith("not applicable")
    scale = verdicts["attention.score-scale"]  # no softmax seen: the module output is compared instead
    assert scale.passed and scale.applicable


def test_per_head_loop_variant_is_checked_head_by_head(measure, reference):
    loop = next(v for v in CORRECT_VARIANTS if v.name == "per-head-loop")
    verdicts = _verdicts(measure(loop.files(), probes=STRUCTURE_PROBES), reference)
    for test_id in ("attention.rows-sum-to-one", "attention.rows-zero-on-future", "attention.score-scale"):
        assert verdicts[test_id].passed and verdicts[test_id].applicable, verdicts[test_id].message


def test_renamed_submodules_are_found_by_what_they_do(measure, reference):
    files = solution_files()
    files["model.py"] = files["model.py"].replace("self.mlp", "self.ffn").replace("self.attn", "self.mix")
    renamed = files["model.py"]
    verdicts = _verdicts(measure(files, probes=STRUCTURE_PROBES), reference)
    for test_id in ("attention.score-scale", "general.block-residual-identity", "general.mlp-nonlinear",
                    "attention.rows-sum-to-one"):
        assert verdicts[test_id].passed and verdicts[test_id].applicable, test_id
    files["model.py"] = renamed.replace("self.c_proj(self.gelu(self.c_fc(x)))", "self.c_proj(self.c_fc(x))")
    files["model.py"] = files["model.py"].replace("x = x + self.mix(self.ln_1(x))",
                                                  "h = self.ln_1(x)\n        x = h + self.mix(h)")
    files["model.py"] = files["model.py"].replace("math.sqrt(k.size(-1))", "math.sqrt(C)")
    verdicts = _verdicts(measure(files, probes=STRUCTURE_PROBES), reference)
    for test_id in ("attention.score-scale", "general.block-residual-identity", "general.mlp-nonlinear"):
        assert verdicts[test_id].applicable and not verdicts[test_id].passed, test_id


def test_sdpa_with_wrong_scale_fails_score_scale(measure, reference):
    sdpa = next(v for v in CORRECT_VARIANTS if v.name == "sdpa")
    files = sdpa.files()
    files["model.py"] = files["model.py"].replace("is_causal=True)", "is_causal=True, scale=1.0 / C)")
    verdicts = _verdicts(measure(files, probes=["attention_scale"]), reference)
    assert not verdicts["attention.score-scale"].passed


@pytest.mark.parametrize(("slug", "expected"), [
    ("attention-zoo", {"softmax-over-queries": {"attention.rows-sum-to-one"},
                       "scale-by-width": {"attention.score-scale"},
                       "heads-merged-without-transpose": set(),
                       "mask-after-softmax": {"attention.rows-zero-on-future"}}),
    ("block-party", {"residual-from-normalised": {"general.block-residual-identity"},
                     "mlp-without-activation": {"general.mlp-nonlinear"},
                     "dropout-always-on": set(), "layernorm-variance-over-batch": set()}),
    ("label-trouble", {"labels-shifted-twice": set(),
                       "logits-scrambled-in-reshape": {"loss.rewards-own-target"},
                       "padding-counted": {"loss.padding-matches-shorter"},
                       "loss-summed-per-sequence": {"loss.mean-over-positions"}}),
])
def test_builtin_bugs_each_fail_only_their_own_new_test(slug, expected, measure):
    """Each new test singles out one bug of the scenario; the solution passes them all."""
    pkg = load_package(BUILTIN / slug)
    probes = [*STRUCTURE_PROBES, "loss_invariances"]
    ref = measure(pkg.solution_files, probes=probes)
    assert _new_failures(ref, ref, pkg.files) == set()
    for bug_id, tests in expected.items():
        assert _new_failures(measure(pkg.mutant_files(bug_id), probes=probes), ref, pkg.files) == tests, bug_id


def test_softmax_in_float32_passes_the_attention_tests(measure, reference):
    files = solution_files()
    files["model.py"] = files["model.py"].replace("att = F.softmax(att, dim=-1)",
                                                  "att = att.float().softmax(dim=-1).to(v.dtype)")
    verdicts = _verdicts(measure(files, probes=STRUCTURE_PROBES), reference)
    for test_id in ("attention.rows-sum-to-one", "attention.rows-zero-on-future", "attention.score-scale"):
        assert verdicts[test_id].passed and verdicts[test_id].applicable, verdicts[test_id].message


@pytest.mark.parametrize(("query", "scores", "correct"), [
    ("q * (1.0 / math.sqrt(k.size(-1)))", "q @ k.transpose(-2, -1)", True),  # the scale applied to q first
    ("q * (1.0 / math.sqrt(k.size(-1)))", "(q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))", False),
    ("q / math.sqrt(C)", "q @ k.transpose(-2, -1)", False),
])
def test_scale_applied_to_the_query_counts_once(query, scores, correct, measure, reference):
    files = solution_files()
    model = files["model.py"].replace(
        "        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, nh, T, T)\n",
        f"        q = {query}\n        att = {scores}  # (B, nh, T, T)\n")
    assert model != files["model.py"]
    files["model.py"] = model
    verdicts = _verdicts(measure(files, probes=["attention_scale"]), reference)
    scale = verdicts["attention.score-scale"]
    assert scale.applicable and scale.passed == correct, scale.message
