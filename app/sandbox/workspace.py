"""Build the per-run job directory: candidate files, the input file, scratch and output dirs."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any


class CandidateFileError(ValueError):
    """A candidate file name that would escape its directory or is otherwise unusable."""


@dataclass(frozen=True)
class Workspace:
    """Host-side directories of one run; removed as a whole afterwards."""

    root: Path
    candidate_dir: Path
    input_file: Path
    out_dir: Path
    scratch_dir: Path

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


def create_workspace(
    *, candidate_files: dict[str, str], job_input: dict[str, Any], parent: Path | None = None
) -> Workspace:
    """Write candidate files (0644) and the input JSON into a fresh private directory."""
    root = Path(tempfile.mkdtemp(prefix="dojo-run-", dir=parent))
    os.chmod(root, 0o755)
    workspace = Workspace(
        root=root,
        candidate_dir=root / "candidate",
        input_file=root / "input.json",
        out_dir=root / "out",
        scratch_dir=root / "scratch",
    )
    try:
        workspace.candidate_dir.mkdir(mode=0o755)
        for name, text in candidate_files.items():
            target = workspace.candidate_dir.joinpath(*_safe_relative(name).parts)
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            target.write_text(text, encoding="utf-8")
            os.chmod(target, 0o644)
        workspace.input_file.write_text(json.dumps(job_input), encoding="utf-8")
        os.chmod(workspace.input_file, 0o644)
        workspace.out_dir.mkdir(mode=0o755)
        workspace.scratch_dir.mkdir(mode=0o755)
    except BaseException:
        workspace.remove()
        raise
    return workspace
