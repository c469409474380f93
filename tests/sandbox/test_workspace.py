"""Candidate file names are checked before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.sandbox.workspace import CandidateFileError, create_workspace


@pytest.mark.parametrize("name", ["../escape.py", "/etc/passwd", "a/../../b.py", "", "x\nname.py", "./model.py"])
def test_create_workspace_rejects_names_that_escape_or_are_odd(name: str, tmp_path: Path) -> None:
    with pytest.raises(CandidateFileError):
        create_workspace(candidate_files={name: "x = 1"}, job_input={}, parent=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_create_workspace_writes_nested_files_readable_by_others(tmp_path: Path) -> None:
    workspace = create_workspace(
        candidate_files={"model.py": "A = 1", "pkg/util.py": "B = 2"}, job_input={"k": 1}, parent=tmp_path
    )
    assert (workspace.candidate_dir / "pkg" / "util.py").read_text() == "B = 2"
    assert (workspace.candidate_dir / "model.py").stat().st_mode & 0o777 == 0o644
    assert workspace.input_file.read_text() == '{"k": 1}'
    workspace.remove()
    assert not workspace.root.exists()
