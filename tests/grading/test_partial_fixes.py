"""Partial fixes in scenarios whose bugs share tests: each fixed bug is credited while one remains."""

from __future__ import annotations

import pytest

from app.engine.builtin import find_builtin
from app.engine.edits import apply_edits
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


# Where the remaining bug may hide another bug's own tests, that other bug is "cannot tell yet", never
# credited. In label-trouble, with logits-scrambled-in-reshape left, the starter passes the own tests of
# labels-shifted-twice and padding-counted: which bug hides them is not measured (no pair run records it).
# In attention-zoo, heads-merged-without-transpose has one test of its own, the random-token leak probe, a
# trained loss against a threshold: with softmax-over-queries left it passes, and whether that pair would
# leak together is not measured (three of the four bugs together do not), so its fix waits.
CANNOT_TELL = {
    ("attention-zoo", "softmax-over-queries"): {"heads-merged-without-transpose"},
    # labels-shifted-twice's own test there is the training run's (a trained loss): unmeasured with padding-counted
    ("label-trouble", "padding-counted"): {"labels-shifted-twice"},
    ("label-trouble", "logits-scrambled-in-reshape"): {"labels-shifted-twice", "padding-counted"},
}


@pytest.mark.parametrize(("slug", "remaining"), CASES, ids=[f"{s}:{b}" for s, b in CASES])
def test_all_bugs_fixed_but_one_credits_every_other_fix(slug, remaining, runner):
    package = find_builtin(slug)
    report = grade_files(package=package, files=package.mutant_files(remaining), runner=runner)
    undecided = CANNOT_TELL.get((slug, remaining), set())
    expected = {bug.id: "not_fixed" if bug.id == remaining else "cannot_tell" if bug.id in undecided else "fixed"
                for bug in package.bugs}
    assert {b.id: b.verdict for b in report.bugs} == expected
    credited = len(package.bugs) - 1 - len(undecided)
    assert report.score == pytest.approx(credited / len(package.bugs))
    assert report.status == "failed"


# Scenarios whose bugs all break one path (the cache, the rotation): a fix of one bug while the others
# remain is credited by the tests only that bug fails (which keys a decoded query is given or weighs,
# how it is rotated; which frequencies; whether values carry positions).
ONE_FIXED = [
    ("cache-drift", "cache-returns-before-append"),
    ("rotary-road", "values-rotated"),
    ("llama-deep-end", "causal-flag-for-chunks"),
]


@pytest.mark.parametrize(("slug", "fixed"), ONE_FIXED, ids=[f"{s}:{b}" for s, b in ONE_FIXED])
def test_one_bug_fixed_while_the_others_remain_scores_that_fix(slug, fixed, runner):
    package = find_builtin(slug)
    others = [bug for bug in package.bugs if bug.id != fixed]
    files = dict(package.solution_files)
    for bug in others:
        files = apply_edits(files, list(bug.edits), where=f"bugs[{bug.id}]")
    report = grade_files(package=package, files=files, runner=runner)
    assert {b.id: b.verdict for b in report.bugs} == {
        bug.id: "fixed" if bug.id == fixed else "not_fixed" for bug in package.bugs}
    assert report.score == pytest.approx(1 / len(package.bugs), abs=1e-4)  # scores are kept to 4 places
    assert report.status == "failed"
