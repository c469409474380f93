"""The one shape every way of running untrusted harness code shares.

A runner (plain subprocess for development, bubblewrap in production) takes a HarnessJob and
returns a HarnessOutcome; the grader never cares which runner it got.

Inside the run the harness finds everything through environment variables, never fixed paths: the
launcher protocol in app/sandbox/protocol.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from app.sandbox.progress import ProgressCallback

ErrorKind = Literal["timeout", "memory", "output", "syntax", "import", "crash", "sandbox"]
ERROR_KINDS: tuple[str, ...] = ("timeout", "memory", "output", "syntax", "import", "crash", "sandbox")

MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits for one harness run."""

    cpu_seconds: int = 60
    wall_seconds: float = 90.0
    # Address-space cap (no memory cgroup is delegated here); torch 2.13 CPU imports well under it.
    memory_bytes: int = 1536 * MiB
    max_processes: int = 64
    max_open_files: int = 256
    max_file_bytes: int = 64 * MiB
    max_output_bytes: int = 256 * 1024
    scratch_bytes: int = 128 * MiB
    max_result_bytes: int = 4 * MiB


@dataclass(frozen=True)
class HarnessJob:
    """What to run: candidate files, the trusted harness, and its JSON input."""

    candidate_files: dict[str, str]
    harness_dir: Path
    # input.json as the harness reads it; each harness defines its own (the sandbox only writes it).
    input: Mapping[str, object]
    limits: Limits = field(default_factory=Limits)
    # Called with {stage, name?, k?, n?} as the harness reports progress (display only, never trusted).
    on_progress: ProgressCallback | None = field(default=None, compare=False)


@dataclass
class HarnessOutcome:
    """What came back. `result` is the parsed result.json when the run produced a valid one (untrusted
    JSON: app.engine.harness_run.measured reads it)."""

    result: dict[str, object] | None
    error_kind: ErrorKind | None = None
    error_message: str | None = None
    stdout: str = ""
    stderr: str = ""
    wall_seconds: float = 0.0
    exit_code: int | None = None

    @property
    def ok(self) -> bool:
        return self.error_kind is None and self.result is not None


class Runner(Protocol):
    """Runs one HarnessJob to completion (or to its limits) and reports the outcome."""

    name: str

    def run(self, job: HarnessJob) -> HarnessOutcome: ...
