"""The per-run job directory: empty at first, filled with one job's files just before it runs.

A sandbox can be started before its job exists (warm sandboxes); it binds these directories
read-only while they are still empty, and the trusted side writes the job into them afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

INPUT_NAME = "input.json"


class CandidateFileError(ValueError):
    """A candidate file name that would escape its directory or is otherwise unusable."""


@dataclass(frozen=True)
class Workspace:
    """Host-side directories of one run; removed as a whole afterwards."""

    root: Path
    candidate_dir: Path
    harness_dir: Path
    input_dir: Path
    out_dir: Path
    scratch_dir: Path

    @property
    def input_file(self) -> Path:
        return self.input_dir / INPUT_NAME

    def fill(
        self, *, candidate_files: dict[str, str], job_input: Mapping[str, object], harness_dir: Path | None = None
    ) -> None:
        """Write the candidate files (0644) and the input JSON; copy the harness when given."""
        for name, text in candidate_files.items():
            target = self.candidate_dir.joinpath(*_safe_relative(name).parts)
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            target.write_text(text, encoding="utf-8")
            os.chmod(target, 0o644)
        self.input_file.write_text(json.dumps(dict(job_input)), encoding="utf-8")
        os.chmod(self.input_file, 0o644)
        if harness_dir is not None:
            _copy_readable(Path(os.path.realpath(harness_dir)), self.harness_dir)

    def remove(self) -> None:
        """Delete everything the run left, without following links planted inside."""
        shutil.rmtree(self.root, ignore_errors=True)


def _safe_relative(name: str) -> PurePosixPath:
    """Reject absolute names, '..', empty parts and control characters in candidate file names."""
    rel = PurePosixPath(name)
    if (
        not name
        or rel.is_absolute()
        or any(part in ("", ".", "..") for part in name.split("/"))
        or any(ord(ch) < 32 for ch in name)
        or len(name) > 200
    ):
        raise CandidateFileError(f"invalid candidate file name: {name[:80]!r}")
    return rel


def check_file_names(names: list[str]) -> None:
    """Raise CandidateFileError for the first unusable name (before any sandbox is spent on the job)."""
    for name in names:
        _safe_relative(name)


def _copy_readable(source: Path, target: Path) -> None:
    """Copy a trusted harness tree (regular files and directories only), world-readable, owner-writable."""
    for current, dirs, files in os.walk(source):
        here = target / Path(current).relative_to(source)
        here.mkdir(mode=0o755, exist_ok=True)
        os.chmod(here, 0o755)
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if os.path.isfile(os.path.join(current, name)):
                shutil.copyfile(os.path.join(current, name), here / name, follow_symlinks=True)
                os.chmod(here / name, 0o644)


def create_workspace(*, parent: Path | None = None) -> Workspace:
    """A fresh private directory with empty candidate, harness, input, out and scratch directories."""
    root = Path(tempfile.mkdtemp(prefix="dojo-run-", dir=parent))
    os.chmod(root, 0o755)
    workspace = Workspace(
        root=root,
        candidate_dir=root / "candidate",
        harness_dir=root / "harness",
        input_dir=root / "input",
        out_dir=root / "out",
        scratch_dir=root / "scratch",
    )
    for directory in (workspace.candidate_dir, workspace.harness_dir, workspace.input_dir,
                      workspace.out_dir, workspace.scratch_dir):  # fmt: skip
        directory.mkdir(mode=0o755)
    return workspace
