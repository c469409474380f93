"""The llama-v1 harness run on model files (its judge in this process, its agent in a child), and the
template's reference measurements."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # llama_variants.py

from harness_support import Measure, assemble, in_judge  # noqa: E402


@pytest.fixture(scope="session")
def llama_harness_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The assembled llama-v1 harness (agent and judge, its probes, gpt-v1's probe package, the kit, the
    corpus)."""
    from app.engine.llama_v1 import bundle

    return assemble(bundle.harness_bundle_dir, tmp_path_factory.mktemp("dojo-data"))


@pytest.fixture(scope="session")
def llama_measure(llama_harness_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Measure:
    """llama_measure(files, probes=None) -> result dict: the llama-v1 judge in this process, its agent in a
    child process on the files."""
    sys.path.insert(0, str(llama_harness_dir))
    from llama_harness import RESULT_SCHEMA, runner
    from llama_harness.loading import LlamaView

    return in_judge(runner, llama_harness_dir, tmp_path_factory, "llama-candidate", schema=RESULT_SCHEMA,
                    view=LlamaView)


@pytest.fixture(scope="session")
def llama_reference(llama_measure) -> dict:
    """Full measurements of the template (model.py, data.py, train.py), training runs included."""
    from llama_variants import template_files

    result = llama_measure(template_files())
    assert result["error"] is None
    return result
