"""Where a test run's time went, from its JUnit XML: worker-seconds in all, by file and by test.

    scripts/suite_times.py JUNIT_XML [--top N]

Write the XML with `PYTEST_ADDOPTS="--junitxml=/tmp/junit.xml" CI=true bash .ci/run` (or the same option to
scripts/test.sh). The whole suite runs one pytest-xdist worker per core with both cores busy to the end, so
its wall time is about the worker-seconds printed here divided by the cores: a change that saves time has to
lower this total.
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class TestTime:
    file: str
    name: str
    seconds: float


def read_times(path: str) -> list[TestTime]:
    """Each test case's time: setup, call and teardown, as pytest's JUnit report counts it."""
    root = ElementTree.parse(path).getroot()
    times = []
    for case in root.iter("testcase"):
        module = case.get("classname", "")
        times.append(TestTime(file=module.replace(".", "/") + ".py", name=case.get("name", ""),
                              seconds=float(case.get("time") or 0)))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit_xml")
    parser.add_argument("--top", type=int, default=20, help="files and tests to list (default 20)")
    args = parser.parse_args()

    times = read_times(args.junit_xml)
    by_file: Counter[str] = Counter()
    for t in times:
        by_file[t.file] += t.seconds
    print(f"{len(times)} tests, {sum(t.seconds for t in times):.0f} worker-seconds")
    print("\nslowest files (worker-seconds, tests):")
    count = Counter(t.file for t in times)
    for file, seconds in by_file.most_common(args.top):
        print(f"{seconds:8.1f} {count[file]:5d}  {file}")
    print("\nslowest tests (seconds):")
    for t in sorted(times, key=lambda t: t.seconds, reverse=True)[: args.top]:
        print(f"{t.seconds:8.1f}  {t.file}::{t.name}")


if __name__ == "__main__":
    main()
