"""Find out once per process whether bubblewrap can create a sandbox on this host."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

BWRAP_ENV = "DOJO_BWRAP"
DEFAULT_BWRAP = "/usr/bin/bwrap"
# When the service runs as root, sandboxed processes run as uid base + slot instead.
SANDBOX_UID_BASE = 64000
UID_BASE_ENV = "DOJO_SANDBOX_UID_BASE"


def sandbox_uid_base() -> int:
    """First sandbox uid (DOJO_SANDBOX_UID_BASE overrides 64000); nothing else may use the range."""
    return int(os.environ.get(UID_BASE_ENV) or SANDBOX_UID_BASE)


def bwrap_path() -> str:
    """Path of the bubblewrap binary (DOJO_BWRAP overrides the default)."""
    return os.environ.get(BWRAP_ENV) or shutil.which("bwrap") or DEFAULT_BWRAP


_PROBE_HARNESS = "import os\nopen(os.path.join(os.environ['DOJO_OUT'], 'result.json'), 'w').write('{\"probe\": 1}')\n"


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """None when a real sandboxed run (every option the runner uses) works here, else a short reason."""
    path = bwrap_path()
    if not os.access(path, os.X_OK):
        return f"{path} not found"
    from app.sandbox.bwrap_runner import BwrapRunner
    from app.sandbox.job import HarnessJob

    with tempfile.TemporaryDirectory(prefix="dojo-probe-") as harness:
        os.chmod(harness, 0o755)
        main = Path(harness) / "main.py"
        main.write_text(_PROBE_HARNESS)
        main.chmod(0o644)
        try:
            outcome = BwrapRunner(bwrap=path).run(HarnessJob(candidate_files={}, harness_dir=Path(harness), input={}))
        except OSError as exc:
            return f"bubblewrap failed to start: {exc.__class__.__name__}"
    if outcome.result != {"probe": 1}:
        return f"a test sandbox failed ({outcome.error_kind}: {outcome.error_message})"
    return None
