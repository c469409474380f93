"""Assemble the harness directory: the agent (main.py, run in the sandbox), the judge (judge.py, run
outside it), llama-v1's probes and requests (llama_harness/), the shared probes they build on
(lm_probes/), the engine kit (dojo_kit/) and the corpus."""

from __future__ import annotations

import hashlib
from pathlib import Path

from app.core.settings import live_settings
from app.engine.bundle_dir import CORPUS_FILE, kit_sources, lm_probe_sources, materialise, shared_check_sources

HERE = Path(__file__).resolve().parent
HARNESS_SRC = HERE / "harness"
# The blank llama-v1 model: the solution of its template scenario (interfaces.LLAMA_V1.template_scenario),
# one copy of the files rather than a second one kept here.
TEMPLATE_DIR = HERE.parents[1] / "scenarios_builtin" / "norm-and-gate" / "solution"
CHECK_FILES = ("checks.py", "checks_cache.py", "checks_generation.py", "checks_interface.py", "checks_layers.py",
               "checks_training.py")

__all__ = ["CORPUS_FILE", "TEMPLATE_DIR", "engine_fingerprint", "harness_bundle_dir"]


def _sources() -> dict[str, Path]:
    """Bundle path -> source file: main.py, judge.py and llama_harness/ from here, lm_probes/ from the
    shared probes, dojo_kit/ from the kit."""
    sources = {str(path.relative_to(HARNESS_SRC)): path for path in sorted(HARNESS_SRC.rglob("*.py"))
               if "__pycache__" not in path.parts}
    return {**lm_probe_sources(), **sources, **kit_sources()}


def engine_fingerprint() -> str:
    """Hash of everything that determines measurements and verdicts: llama-v1's probes, the shared probes,
    the kit, llama-v1's checks and the shared checks it uses, the corpus."""
    h = hashlib.sha256(b"llama-v1")
    files = [*_sources().items(), *((f, HERE / f) for f in CHECK_FILES), *shared_check_sources().items(),
             ("corpus", CORPUS_FILE)]
    for name, path in files:
        h.update(name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def harness_bundle_dir() -> Path:
    """A directory with main.py, judge.py, llama_harness/, lm_probes/, dojo_kit/ and corpus.txt, built
    once per fingerprint."""
    sources = _sources()
    sources["corpus.txt"] = CORPUS_FILE
    return materialise(live_settings().dojo_data_dir / "cache" / "harness" / engine_fingerprint(), sources)
