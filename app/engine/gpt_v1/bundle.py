"""Assemble the read-only harness directory handed to the sandbox: probe code plus the corpus."""

from __future__ import annotations

import hashlib
from pathlib import Path

from app.core.settings import live_settings
from app.engine.bundle_dir import materialise

HARNESS_SRC = Path(__file__).resolve().parent / "harness"
CORPUS_FILE = Path(__file__).resolve().parents[2] / "corpus" / "macbeth.txt"
CHECK_FILES = ("checks.py", "checks_model.py", "checks_generation.py", "checks_training.py", "checks_structure.py",
               "checks_interface.py", "judging.py", "verdicts.py")


def _harness_files() -> list[Path]:
    return sorted(p for p in HARNESS_SRC.rglob("*.py") if "__pycache__" not in p.parts)


def engine_fingerprint() -> str:
    """Hash of everything that determines measurements and verdicts (harness, checks, corpus)."""
    h = hashlib.sha256()
    for p in [*_harness_files(), *(Path(__file__).parent / f for f in CHECK_FILES), CORPUS_FILE]:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def harness_bundle_dir() -> Path:
    """A directory with main.py, dojo_harness/ and corpus.txt, built once per engine fingerprint."""
    sources = {str(src.relative_to(HARNESS_SRC)): src for src in _harness_files()}
    sources["corpus.txt"] = CORPUS_FILE
    return materialise(live_settings().dojo_data_dir / "cache" / "harness" / engine_fingerprint(), sources)
