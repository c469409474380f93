"""Find out once per process whether bubblewrap can create a sandbox on this host."""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

from app.sandbox.host import bwrap_path
from app.sandbox.protocol import OUT_VAR

_PROBE_HARNESS = (f"import os\nopen(os.path.join(os.environ['{OUT_VAR}'], 'result.json'), 'w')"
                  ".write('{\"probe\": 1}')\n")


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
