"""The llama-v1 harness run in-process on model files, and the template's reference measurements."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # llama_variants.py


@pytest.fixture(scope="session")
def llama_harness_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The assembled llama-v1 harness (its probes, gpt-v1's probe package, the corpus)."""
    from app.engine.llama_v1 import bundle

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
def llama_measure(llama_harness_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """llama_measure(files, probes=None) -> result dict, running the llama-v1 probes in this process."""
    sys.path.insert(0, str(llama_harness_dir))
    from llama_harness import runner

    counter = iter(range(10**6))

    def run(files: dict[str, str], probes: list[str] | None = None) -> dict:
        directory = tmp_path_factory.mktemp(f"llama-candidate{next(counter)}")
        for name, text in files.items():
            (directory / name).write_text(text)
        job = {"files": sorted(files), "probes": probes}
        try:
            return runner._clean(runner.measure(str(directory), str(llama_harness_dir), job))
        finally:
            for name, module in list(sys.modules.items()):
                if str(getattr(module, "__file__", None) or "").startswith(str(directory)):
                    del sys.modules[name]

    return run


@pytest.fixture(scope="session")
def llama_reference(llama_measure) -> dict:
    """Full measurements of the template (model.py, data.py, train.py), training runs included."""
    from llama_variants import template_files

    result = llama_measure(template_files())
    assert result["error"] is None
    return result
