"""scripts/suite_times.py: a JUnit report summed into worker-seconds, by file and by test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from app.core.paths import ROOT_DIR

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="3">
<testcase classname="tests.web.test_pages" name="test_a" time="1.5" />
<testcase classname="tests.web.test_pages" name="test_b[x]" time="0.5" />
<testcase classname="tests.grading.test_grader" name="test_c" time="4.5" />
</testsuite></testsuites>
"""


def test_it_sums_the_report_by_file_and_lists_the_slowest_tests(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(REPORT, encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT_DIR / "scripts" / "suite_times.py"), str(report), "--top", "2"],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "3 tests, 6 worker-seconds"
    files = lines[lines.index("slowest files (worker-seconds, tests):") + 1:][:2]
    assert [line.split() for line in files] == [["4.5", "1", "tests/grading/test_grader.py"],
                                                ["2.0", "2", "tests/web/test_pages.py"]]
    tests = lines[lines.index("slowest tests (seconds):") + 1:]
    assert [line.split() for line in tests] == [["4.5", "tests/grading/test_grader.py::test_c"],
                                                ["1.5", "tests/web/test_pages.py::test_a"]]
