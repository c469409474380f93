"""Shared fixtures: the harness run in-process (fast, for probe tests) and the solution's reference."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # variants.py, bug_fixtures.py, harness_support.py

from harness_support import Measure, assemble, in_process  # noqa: E402


@pytest.fixture(scope="session")
def harness_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The assembled harness (code + corpus), built under a temporary data directory."""
    from app.engine.gpt_v1 import bundle

    return assemble(bundle.harness_bundle_dir, tmp_path_factory.mktemp("dojo-data"))


@pytest.fixture(scope="session")
def measure(harness_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Measure:
    """measure(files, probes=None) -> result dict, running the harness's probes in this process."""
    sys.path.insert(0, str(harness_dir))
    from dojo_harness import runner

    return in_process(runner, harness_dir, tmp_path_factory, "candidate")


@pytest.fixture(scope="session")
def reference(measure) -> dict:
    """Full measurements of the leaky-mask solution (with the train.py fixture)."""
    from variants import solution_files

    return measure(solution_files(with_train=True))
