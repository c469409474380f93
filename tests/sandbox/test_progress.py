"""The progress channel: what the harness reports arrives while it runs, garbage and floods are dropped."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.progress import MAX_TOTAL_BYTES, Progress, ProgressReader, sanitise
from app.sandbox.subprocess_runner import SubprocessRunner

from .helpers import job_for

REPORTING_MODEL = """
import json, os
fd = int(os.environ["DOJO_PROGRESS_FD"])
os.write(fd, json.dumps({"stage": "probe", "name": "shapes", "k": 1, "n": 3}).encode() + b"\\n")
os.write(fd, b"not json\\n" + b"x" * 5000 + b"\\n")
os.write(fd, json.dumps({"stage": "training", "k": 25, "n": 200, "extra": "<script>"}).encode() + b"\\n")
VALUE = "done"
"""

FLOODING_MODEL = """
import os
fd = int(os.environ["DOJO_PROGRESS_FD"])
line = b'{"stage": "flood"}\\n'
for _ in range(200_000):
    os.write(fd, line)
VALUE = "survived"
"""


def test_sanitise_keeps_a_small_fixed_shape() -> None:
    assert sanitise({"stage": "probe", "k": 2, "n": 9, "name": "x" * 100, "html": "<b>"}) == Progress(
        stage="probe", name="x" * 60, k=2, n=9)
    assert sanitise({"stage": 3}) is None
    assert sanitise(["stage"]) is None
    assert sanitise({"stage": "s", "k": True, "n": -1}) == Progress(stage="s")


def test_reader_splits_chunks_into_lines_and_stops_after_the_cap() -> None:
    seen: list[Progress] = []
    reader = ProgressReader(seen.append)
    reader.feed(b'{"stage": "a"}\n{"sta')
    reader.feed(b'ge": "b"}\n')
    assert [p.to_json() for p in seen] == [{"stage": "a"}, {"stage": "b"}]
    reader.feed(b'{"stage": "c"}\n' * (MAX_TOTAL_BYTES // 10))
    assert Progress(stage="c") not in seen



@pytest.mark.parametrize("runner_name", [pytest.param("bwrap", marks=pytest.mark.bwrap), "subprocess"])
def test_progress_lines_reach_the_callback_and_garbage_does_not(runner_name: str, tmp_path: Path) -> None:
    runner = BwrapRunner(workspace_parent=tmp_path) if runner_name == "bwrap" else SubprocessRunner(
        workspace_parent=tmp_path)
    seen: list[Progress] = []
    job = dataclasses.replace(job_for(REPORTING_MODEL), on_progress=seen.append)
    outcome = runner.run(job)
    assert outcome.ok and outcome.result is not None and outcome.result["value"] == "done", outcome.error_message
    assert [p.to_json() for p in seen] == [{"stage": "probe", "name": "shapes", "k": 1, "n": 3},
                                           {"stage": "training", "k": 25, "n": 200}]


@pytest.mark.bwrap
def test_a_progress_flood_neither_blocks_nor_floods_the_trusted_side(tmp_path: Path) -> None:
    seen: list[Progress] = []
    job = dataclasses.replace(job_for(FLOODING_MODEL), on_progress=seen.append)
    outcome = BwrapRunner(workspace_parent=tmp_path).run(job)
    assert outcome.ok and outcome.result is not None and outcome.result["value"] == "survived"
    assert 0 < len(seen) <= MAX_TOTAL_BYTES // len(b'{"stage": "flood"}\n') + 1


@pytest.mark.bwrap
def test_a_job_without_a_callback_still_drains_the_pipe(tmp_path: Path) -> None:
    outcome = BwrapRunner(workspace_parent=tmp_path).run(job_for(FLOODING_MODEL))
    assert outcome.ok and outcome.result is not None and outcome.result["value"] == "survived"
