"""Reading result.json back from a directory the candidate controlled."""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.sandbox.result_file import read_result_file


def test_read_result_file_parses_a_json_object(tmp_path: Path) -> None:
    (tmp_path / "result.json").write_text(json.dumps({"loss": 1.5}))
    read = read_result_file(tmp_path, max_bytes=1024)
    assert read.result == {"loss": 1.5} and read.problem is None


def test_read_result_file_refuses_a_symlink_without_following_it(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"secret": "do-not-read"}')
    (tmp_path / "out").mkdir()
    os.symlink(secret, tmp_path / "out" / "result.json")
    read = read_result_file(tmp_path / "out", max_bytes=1024)
    assert read.result is None and read.problem is not None and "symbolic link" in read.problem


def test_read_result_file_refuses_a_symlinked_output_directory(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "result.json").write_text("{}")
    os.symlink(real, tmp_path / "out")
    read = read_result_file(tmp_path / "out", max_bytes=1024)
    assert read.result is None and read.missing


def test_read_result_file_does_not_block_on_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "result.json")
    read = read_result_file(tmp_path, max_bytes=1024)
    assert read.result is None and read.problem == "The result file is not a regular file."


def test_read_result_file_refuses_a_directory(tmp_path: Path) -> None:
    (tmp_path / "result.json").mkdir()
    read = read_result_file(tmp_path, max_bytes=1024)
    assert read.result is None and read.problem == "The result file is not a regular file."


def test_read_result_file_refuses_a_file_over_the_cap(tmp_path: Path) -> None:
    (tmp_path / "result.json").write_text(json.dumps({"pad": "x" * 5000}))
    read = read_result_file(tmp_path, max_bytes=1024)
    assert read.result is None and read.too_large


def test_read_result_file_reports_missing_result(tmp_path: Path) -> None:
    read = read_result_file(tmp_path, max_bytes=1024)
    assert read.result is None and read.missing


def test_read_result_file_rejects_non_json_and_non_objects(tmp_path: Path) -> None:
    (tmp_path / "result.json").write_text("not json {")
    assert read_result_file(tmp_path, max_bytes=1024).problem == "The result file is not valid JSON."
    (tmp_path / "result.json").write_text("[1, 2]")
    assert read_result_file(tmp_path, max_bytes=1024).problem == "The result file does not hold a JSON object."
    (tmp_path / "result.json").write_bytes(b"\xff\xfe{")
    assert read_result_file(tmp_path, max_bytes=1024).problem == "The result file is not valid JSON."
