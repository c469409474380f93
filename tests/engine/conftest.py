"""Shared fixtures: the split harness (the judge in this process, the agent in a child process) for probe
tests, and the solution's reference."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # variants.py, bug_fixtures.py, harness_support.py

from harness_support import Measure, assemble, in_judge  # noqa: E402


@pytest.fixture(scope="session")
def harness_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The assembled harness (code + corpus), built under a temporary data directory."""
    from app.engine.gpt_v1 import bundle

    return assemble(bundle.harness_bundle_dir, tmp_path_factory.mktemp("dojo-data"))


@pytest.fixture(scope="session")
def measure(harness_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Measure:
    """measure(files, probes=None) -> result dict, the judge's probes run in this process against the
    bundle's agent."""
    sys.path.insert(0, str(harness_dir))
    from dojo_harness import RESULT_SCHEMA, runner

    return in_judge(runner, harness_dir, tmp_path_factory, "candidate", schema=RESULT_SCHEMA)


@pytest.fixture(scope="session")
def reference(measure) -> dict:
    """Full measurements of the leaky-mask solution (with the train.py fixture)."""
    from variants import solution_files

    return measure(solution_files(with_train=True))
