"""Candidate file names are checked before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.sandbox.workspace import CandidateFileError, check_file_names, create_workspace


@pytest.mark.parametrize("name", ["../escape.py", "/etc/passwd", "a/../../b.py", "", "x\nname.py", "./model.py"])
def test_file_names_that_escape_or_are_odd_are_rejected_before_anything_is_written(name: str, tmp_path: Path) -> None:
    with pytest.raises(CandidateFileError):
        check_file_names(["model.py", name])
    workspace = create_workspace(parent=tmp_path)
    with pytest.raises(CandidateFileError):
        workspace.fill(candidate_files={name: "x = 1"}, job_input={})
    assert list(workspace.candidate_dir.iterdir()) == []
    assert not workspace.input_file.exists()


def test_workspace_starts_empty_and_fill_writes_nested_files_readable_by_others(tmp_path: Path) -> None:
    workspace = create_workspace(parent=tmp_path)
    for directory in (workspace.candidate_dir, workspace.harness_dir, workspace.input_dir):
        assert list(directory.iterdir()) == []
    harness = tmp_path / "src-harness"
    (harness / "pkg" / "__pycache__").mkdir(parents=True)
    (harness / "main.py").write_text("print(1)")
    (harness / "pkg" / "m.py").write_text("X = 1")
    (harness / "pkg" / "__pycache__" / "m.pyc").write_bytes(b"stale")
    workspace.fill(
        candidate_files={"model.py": "A = 1", "pkg/util.py": "B = 2"}, job_input={"k": 1}, harness_dir=harness
    )
    assert (workspace.candidate_dir / "pkg" / "util.py").read_text() == "B = 2"
    assert (workspace.candidate_dir / "model.py").stat().st_mode & 0o777 == 0o644
    assert workspace.input_file.read_text() == '{"k": 1}'
    assert (workspace.harness_dir / "pkg" / "m.py").read_text() == "X = 1"
    assert (workspace.harness_dir / "main.py").stat().st_mode & 0o777 == 0o644
    assert not (workspace.harness_dir / "pkg" / "__pycache__").exists()
    workspace.remove()
    assert not workspace.root.exists()
