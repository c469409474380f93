"""Assemble the harness directory: the agent (main.py, run in the sandbox), the judge (judge.py, run
outside it), llama-v1's probes and requests (llama_harness/), gpt-v1's probe package they build on
(dojo_harness/), the engine kit (dojo_kit/) and the corpus."""

from __future__ import annotations

import hashlib
from pathlib import Path

from app.core.settings import live_settings
from app.engine.bundle_dir import kit_sources, materialise, shared_check_sources
from app.engine.gpt_v1 import bundle as gpt_v1_bundle

HERE = Path(__file__).resolve().parent
HARNESS_SRC = HERE / "harness"
# The blank llama-v1 model: the solution of its template scenario (interfaces.LLAMA_V1.template_scenario),
# one copy of the files rather than a second one kept here.
TEMPLATE_DIR = HERE.parents[1] / "scenarios_builtin" / "norm-and-gate" / "solution"
GPT_V1_DIR = Path(gpt_v1_bundle.__file__).resolve().parent
CORPUS_FILE = gpt_v1_bundle.CORPUS_FILE
CHECK_FILES = ("checks.py", "checks_cache.py", "checks_generation.py", "checks_interface.py", "checks_layers.py",
               "checks_training.py")


def _sources() -> dict[str, Path]:
    """Bundle path -> source file: main.py, judge.py and llama_harness/ from here, dojo_harness/ from
    gpt-v1's harness, dojo_kit/ from the kit."""
    sources = {}
    for base, root in ((gpt_v1_bundle.HARNESS_SRC, gpt_v1_bundle.HARNESS_SRC / "dojo_harness"),
                       (HARNESS_SRC, HARNESS_SRC)):
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" not in path.parts:
                sources[str(path.relative_to(base))] = path
    return {**sources, **kit_sources()}


def engine_fingerprint() -> str:
    """Hash of everything that determines measurements and verdicts: both probe packages, the kit, the
    checks of both interfaces (llama-v1's reuse gpt-v1's), the corpus."""
    h = hashlib.sha256(b"llama-v1")
    files = [*_sources().items(), *((f, HERE / f) for f in CHECK_FILES),
             *((f"gpt_v1/{f}", GPT_V1_DIR / f) for f in gpt_v1_bundle.CHECK_FILES), *shared_check_sources().items(),
             ("corpus", CORPUS_FILE)]
    for name, path in files:
        h.update(name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def harness_bundle_dir() -> Path:
    """A directory with main.py, judge.py, llama_harness/, dojo_harness/, dojo_kit/ and corpus.txt, built
    once per fingerprint."""
    sources = _sources()
    sources["corpus.txt"] = CORPUS_FILE
    return materialise(live_settings().dojo_data_dir / "cache" / "harness" / engine_fingerprint(), sources)
