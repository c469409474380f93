"""Build a read-only directory for the sandbox once (per content hash), atomically, shared by processes."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

KIT_SRC = Path(__file__).resolve().parent / "kit"
SHARED_SRC = Path(__file__).resolve().parent / "shared"
LM_PROBES_SRC = SHARED_SRC / "harness" / "lm_probes"
# The tiny training run's text, shipped as corpus.txt in every language-model bundle.
CORPUS_FILE = Path(__file__).resolve().parents[1] / "corpus" / "macbeth.txt"


def kit_sources() -> dict[str, Path]:
    """The engine kit as every harness bundle ships it: dojo_kit/<file> -> source file."""
    return {f"dojo_kit/{p.name}": p for p in sorted(KIT_SRC.glob("*.py"))}


def lm_probe_sources() -> dict[str, Path]:
    """The probes every language-model interface shares, as each of their bundles ships them:
    lm_probes/<file> -> source file (app/engine/shared/harness/lm_probes/)."""
    return {f"lm_probes/{p.name}": p for p in sorted(LM_PROBES_SRC.glob("*.py"))}


def shared_check_sources() -> dict[str, Path]:
    """The interface-neutral checks and judging (app/engine/shared/*.py) every interface's verdicts
    depend on, for its engine fingerprint: shared/<file> -> source file."""
    return {f"shared/{p.name}": p for p in sorted(SHARED_SRC.glob("*.py"))}


def materialise(target: Path, sources: dict[str, Path]) -> Path:
    """Copy sources (relative destination -> source file) into `target` unless it is complete already.

    Built in a staging directory and renamed into place, so a concurrent reader never sees half a
    bundle; world-readable because the sandbox runs as another uid.
    """
    if all((target / rel).is_file() for rel in sources):
        return target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".bundle-", dir=target.parent))
    for rel, src in sources.items():
        dest = staging / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
    for root, _dirs, files in os.walk(staging):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    try:
        staging.rename(target)
    except OSError:  # another process built it first
        shutil.rmtree(staging, ignore_errors=True)
    return target.resolve()
