"""Partial fixes in scenarios whose bugs share tests: each fixed bug is credited while one remains."""

from __future__ import annotations

import pytest

from app.engine.builtin import find_builtin
from app.grading.grader import grade_files

pytestmark = pytest.mark.slow

CASES = [
    ("attention-zoo", "softmax-over-queries"),
    ("attention-zoo", "scale-by-width"),
    ("attention-zoo", "heads-merged-without-transpose"),
    ("attention-zoo", "mask-after-softmax"),
    ("block-party", "residual-from-normalised"),
    ("block-party", "mlp-without-activation"),
    ("label-trouble", "logits-scrambled-in-reshape"),
    ("label-trouble", "padding-counted"),
    ("label-trouble", "loss-summed-per-sequence"),
]


@pytest.mark.parametrize(("slug", "remaining"), CASES, ids=[f"{s}:{b}" for s, b in CASES])
def test_all_bugs_fixed_but_one_credits_every_other_fix(slug, remaining, runner):
    package = find_builtin(slug)
    report = grade_files(package=package, files=package.mutant_files(remaining), runner=runner)
    fixed = {b.id: b.fixed for b in report.bugs}
    assert fixed == {bug.id: bug.id != remaining for bug in package.bugs}
    assert report.score == pytest.approx((len(package.bugs) - 1) / len(package.bugs))
    assert report.status == "failed"
