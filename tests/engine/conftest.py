"""Shared fixtures: the harness run in-process (fast, for probe tests) and the solution's reference."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # variants.py, bug_fixtures.py


@pytest.fixture(scope="session")
def harness_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The assembled harness (code + corpus), built under a temporary data directory."""
    from app.engine.gpt_v1 import bundle

    old = os.environ.get("DOJO_DATA_DIR")
    os.environ["DOJO_DATA_DIR"] = str(tmp_path_factory.mktemp("dojo-data"))
    try:
        path = bundle.harness_bundle_dir()
    finally:
        if old is None:
            os.environ.pop("DOJO_DATA_DIR", None)
        else:
            os.environ["DOJO_DATA_DIR"] = old
    return path


@pytest.fixture(scope="session")
def measure(harness_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """measure(files, probes=None) -> result dict, running the harness's probes in this process."""
    sys.path.insert(0, str(harness_dir))
    from dojo_harness import runner

    counter = iter(range(10**6))

    def run(files: dict[str, str], probes: list[str] | None = None) -> dict:
        directory = tmp_path_factory.mktemp(f"candidate{next(counter)}")
        for name, text in files.items():
            (directory / name).write_text(text)
        job = {"files": sorted(files), "probes": probes}
        try:
            return runner._clean(runner.measure(str(directory), str(harness_dir), job))
        finally:
            _forget_modules_under(directory)

    return run


def _forget_modules_under(directory: Path) -> None:
    """Drop the candidate's modules (model, data, ...) this process imported from `directory`: a pytest-xdist
    worker runs many files, and tests of servers check that no candidate module was ever imported."""
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(directory)):
            del sys.modules[name]


@pytest.fixture(scope="session")
def reference(measure) -> dict:
    """Full measurements of the leaky-mask solution (with the train.py fixture)."""
    from variants import solution_files

    return measure(solution_files(with_train=True))
