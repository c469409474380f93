"""Per-bug verdicts on states a candidate reaches, graded for real: a bug still there is never "fixed".

The untouched starters of label-trouble and attention-zoo were graded "2 of 4 fixed" (score 0.5) and
"1 of 4 fixed": another planted bug hid the tests of the bugs called fixed. The full measurement over
every built-in (the starter, each bug fixed alone, each bug left alone: 116 states) is
scripts/bug_states.py; these are its headline states.
"""

from __future__ import annotations

import pytest

from app.engine.builtin import find_builtin
from app.grading.grader import grade_files

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("slug", ["label-trouble", "attention-zoo"])
def test_an_untouched_starter_has_no_bug_fixed_and_scores_nothing(slug, runner):
    package = find_builtin(slug)
    report = grade_files(package=package, files=dict(package.starter_files), runner=runner)
    assert report.status == "failed"
    assert [b.id for b in report.bugs if b.fixed] == []
    assert report.score == 0.0
    # Each bug is "not fixed", or "cannot tell yet" where another bug still there hides its tests.
    assert {b.verdict for b in report.bugs} <= {"not_fixed", "cannot_tell"}
    assert all(b.reason and b.reason.startswith("cannot tell yet") for b in report.bugs if b.verdict == "cannot_tell")
