"""Assemble the read-only harness directory handed to the sandbox: probe code plus the corpus."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

HARNESS_SRC = Path(__file__).resolve().parent / "harness"
CORPUS_FILE = Path(__file__).resolve().parents[2] / "corpus" / "macbeth.txt"
CHECK_FILES = ("checks.py", "checks_model.py", "checks_generation.py", "checks_training.py", "checks_structure.py",
               "verdicts.py")


def _harness_files() -> list[Path]:
    return sorted(p for p in HARNESS_SRC.rglob("*.py") if "__pycache__" not in p.parts)


def engine_fingerprint() -> str:
    """Hash of everything that determines measurements and verdicts (harness, checks, corpus)."""
    h = hashlib.sha256()
    for p in [*_harness_files(), *(Path(__file__).parent / f for f in CHECK_FILES), CORPUS_FILE]:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def data_dir() -> Path:
    return Path(os.environ.get("DOJO_DATA_DIR", "./var"))


def harness_bundle_dir() -> Path:
    """A directory with main.py, dojo_harness/ and corpus.txt, built once per engine fingerprint."""
    target = data_dir() / "cache" / "harness" / engine_fingerprint()
    if (target / "main.py").is_file() and (target / "corpus.txt").is_file():
        return target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".bundle-", dir=target.parent))
    for src in _harness_files():
        dest = staging / src.relative_to(HARNESS_SRC)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
    shutil.copyfile(CORPUS_FILE, staging / "corpus.txt")
    for root, _dirs, files in os.walk(staging):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    try:
        staging.rename(target)
    except OSError:  # another process built it first
        shutil.rmtree(staging, ignore_errors=True)
    return target.resolve()
