"""Assemble the pipeline-v1 harness directory: the agent (main.py, run in the sandbox), the judge
(judge.py, run outside it), pipeline_harness/ (the probes, the agent's requests, the grader's own probe
model) and the engine kit (dojo_kit/)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from app.core.settings import live_settings
from app.engine.bundle_dir import kit_sources, materialise, shared_check_sources

HERE = Path(__file__).resolve().parent
HARNESS_SRC = HERE / "harness"
CORPUS_FILE = HERE.parents[1] / "corpus" / "macbeth.txt"
CHECK_FILES = ("checks.py", "checks_data.py", "checks_eval.py", "checks_interface.py", "checks_training.py")


def _sources() -> dict[str, Path]:
    """Bundle path -> source file: main.py, judge.py and pipeline_harness/ from here, dojo_kit/ from the kit."""
    files = sorted(p for p in HARNESS_SRC.rglob("*.py") if "__pycache__" not in p.parts)
    return {**{str(p.relative_to(HARNESS_SRC)): p for p in files}, **kit_sources()}


def engine_fingerprint() -> str:
    """Hash of everything that determines measurements and verdicts: the harness, the kit, the checks."""
    h = hashlib.sha256(b"pipeline-v1")
    for name, path in [*_sources().items(), *((f, HERE / f) for f in CHECK_FILES), *shared_check_sources().items(),
                       ("corpus", CORPUS_FILE)]:
        h.update(name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def harness_bundle_dir() -> Path:
    """A directory with main.py, judge.py, pipeline_harness/, dojo_kit/ and corpus.txt, built once per
    fingerprint."""
    sources = _sources()
    sources["corpus.txt"] = CORPUS_FILE
    return materialise(live_settings().dojo_data_dir / "cache" / "harness" / engine_fingerprint(), sources)
