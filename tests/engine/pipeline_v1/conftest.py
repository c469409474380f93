"""The pipeline-v1 harness run on candidate files (its judge in this process, its agent in a child), and
the template's reference measurements."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # harness_support.py

from harness_support import Measure, assemble, in_judge  # noqa: E402


@pytest.fixture(scope="session")
def pipeline_harness_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The assembled pipeline-v1 harness (agent and judge, its probes and probe model, the kit, the corpus)."""
    from app.engine.pipeline_v1 import bundle

    return assemble(bundle.harness_bundle_dir, tmp_path_factory.mktemp("dojo-data"))


@pytest.fixture(scope="session")
def pipeline_measure(pipeline_harness_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Measure:
    """pipeline_measure(files, probes=None) -> result dict: the pipeline-v1 judge in this process, its agent
    in a child process on the files."""
    sys.path.insert(0, str(pipeline_harness_dir))
    from pipeline_harness import RESULT_SCHEMA, runner

    return in_judge(runner, pipeline_harness_dir, tmp_path_factory, "pipeline-candidate", schema=RESULT_SCHEMA)


@pytest.fixture(scope="session")
def pipeline_probes(pipeline_harness_dir: Path) -> list[str]:
    """The harness's probes but the tiny training run: what the contract's functions are measured by."""
    sys.path.insert(0, str(pipeline_harness_dir))
    from pipeline_harness import runner

    return [name for name in runner.PROBE_NAMES if name != "training_run"]


@pytest.fixture(scope="session")
def pipeline_reference(pipeline_measure: Measure, pipeline_probes: list[str]) -> dict:
    """The template's (padded-truths' solution: model.py, data.py, train.py) measurements by every probe
    but the training run."""
    from pipeline_styles import template_files

    result = pipeline_measure(template_files(), probes=pipeline_probes)
    assert result["error"] is None
    return result


@pytest.fixture(scope="session")
def pipeline_run_reference(pipeline_measure: Measure) -> dict:
    """The template's tiny training run (the baseline a candidate's run is judged against)."""
    from pipeline_styles import template_files

    result = pipeline_measure(template_files(), probes=["interface", "training_run"])
    assert result["error"] is None
    return result


@pytest.fixture(scope="session")
def runner():
    """Gradings in a plain subprocess (the sandbox has its own tests); a test using it is `slow`. The
    pipeline-v1 built-ins share the scenario's model.py and training run, so one submission graded against
    each of them is one harness job, run once (tests/memo_runner.py)."""
    from memo_runner import MemoRunner

    from app.sandbox.subprocess_runner import SubprocessRunner

    return MemoRunner(SubprocessRunner())
