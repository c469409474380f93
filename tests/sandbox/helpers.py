"""Sandbox test helpers: the fixture harness, tight limits, and checks that nothing escaped."""

from __future__ import annotations

import os
from pathlib import Path

from app.sandbox.host import sandbox_uid_base
from app.sandbox.job import HarnessJob, HarnessOutcome, Limits
from app.sandbox.judge_server import fork_server_pids
from app.sandbox.procfs import process_statuses, real_uid
from app.sandbox.slots import SLOT_COUNT

HERE = Path(__file__).resolve().parent
FIXTURE_HARNESS = HERE / "fixture_harness"
OWN_CASES = HERE / "cases"
REPO_ROOT = HERE.parent.parent
MiB = 1024 * 1024

# Tight limits keep the corpus quick; the result cap is below the out tmpfs (2x) so result_huge fits.
TEST_LIMITS = Limits(
    cpu_seconds=4,
    wall_seconds=8.0,
    memory_bytes=512 * MiB,  # the fixture harness needs little; memory cases fail fast
    max_processes=64,
    max_open_files=128,
    max_file_bytes=32 * MiB,
    max_output_bytes=64 * 1024,
    scratch_bytes=64 * MiB,
    max_result_bytes=1 * MiB,
)

FAKE_SECRET_KEY = "sk-dojo-canary-4f1d9c2e7b"
FAKE_DATABASE_URL = "postgresql://dojo:canary-pw-81b3@db.internal/dojo"


def acceptance_dir() -> Path:
    """The shared malicious corpus: $DOJO_ACCEPTANCE_DIR or <repo>/../shared/acceptance/malicious."""
    configured = os.environ.get("DOJO_ACCEPTANCE_DIR")
    return Path(configured) if configured else REPO_ROOT.parent / "shared" / "acceptance" / "malicious"


def case_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if (p / "model.py").is_file()) if root.is_dir() else []


def job_for(model_source: str, *, limits: Limits = TEST_LIMITS) -> HarnessJob:
    return HarnessJob(
        candidate_files={"model.py": model_source}, harness_dir=FIXTURE_HARNESS, input={"echo": 7}, limits=limits
    )


def outcome_text(outcome: HarnessOutcome) -> str:
    """Everything a candidate or reviewer could ever be shown about a run."""
    return "\n".join([outcome.error_message or "", outcome.stdout, outcome.stderr, repr(outcome.result)])


def live_sandbox_processes() -> list[int]:
    """Live pids of any uid in this session's sandbox range, inside or outside a pid namespace."""
    low = sandbox_uid_base()
    return [
        pid
        for pid, fields in process_statuses()
        if low <= (real_uid(fields) or 0) < low + SLOT_COUNT and not fields.get("State", "").strip().startswith("Z")
    ]


def live_children() -> list[int]:
    """Non-zombie processes whose parent is this test process, but for its judge fork server (which
    stays for the next grading: app/sandbox/judge_server.py)."""
    me = str(os.getpid())
    servers = fork_server_pids()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z" and int(entry) not in servers:
            found.append(int(entry))
    return found
