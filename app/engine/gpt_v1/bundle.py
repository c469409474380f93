"""Assemble the harness directory: the agent (main.py, run in the sandbox), the judge (judge.py, run
outside it), gpt-v1's probes (dojo_harness/), the shared probes (lm_probes/), the engine kit
(dojo_kit/) and the corpus."""

from __future__ import annotations

import hashlib
from pathlib import Path

from app.core.settings import live_settings
from app.engine.bundle_dir import CORPUS_FILE, kit_sources, lm_probe_sources, materialise, shared_check_sources

HARNESS_SRC = Path(__file__).resolve().parent / "harness"
CHECK_FILES = ("checks.py", "checks_gpt.py", "checks_interface.py")

__all__ = ["CORPUS_FILE", "engine_fingerprint", "harness_bundle_dir"]


def _harness_files() -> list[Path]:
    return sorted(p for p in HARNESS_SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _sources() -> dict[str, Path]:
    """Bundle path -> source file: main.py, judge.py and dojo_harness/ from here, lm_probes/ from the
    shared probes, dojo_kit/ from the kit."""
    return {**{str(src.relative_to(HARNESS_SRC)): src for src in _harness_files()}, **lm_probe_sources(),
            **kit_sources()}


def engine_fingerprint() -> str:
    """Hash of everything that determines measurements and verdicts (harness, shared probes, kit, checks,
    shared checks, corpus)."""
    h = hashlib.sha256()
    for name, p in [*_sources().items(), *((f, Path(__file__).parent / f) for f in CHECK_FILES),
                    *shared_check_sources().items(), ("corpus", CORPUS_FILE)]:
        h.update(name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def harness_bundle_dir() -> Path:
    """A directory with main.py, judge.py, dojo_harness/, lm_probes/, dojo_kit/ and corpus.txt, built once
    per engine fingerprint."""
    sources = _sources()
    sources["corpus.txt"] = CORPUS_FILE
    return materialise(live_settings().dojo_data_dir / "cache" / "harness" / engine_fingerprint(), sources)
