"""The scratch console in the real sandbox: it imports the candidate's files, reads the corpus, is capped."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engine.builtin import find_builtin
from app.engine.scratch import STARTER
from app.grading.scratch import run_scratch
from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.job import Limits

pytestmark = pytest.mark.bwrap
QUICK = Limits(cpu_seconds=10, wall_seconds=20.0, max_output_bytes=16 * 1024)


@pytest.fixture(scope="module")
def leaky():
    return find_builtin("leaky-mask")


@pytest.fixture
def sandbox(tmp_path: Path) -> BwrapRunner:
    return BwrapRunner(workspace_parent=tmp_path)


def test_starter_opens_with_its_comment() -> None:
    """The first line a candidate sees in scratch.py is the comment that says what it is for."""
    assert STARTER.splitlines()[0].startswith("# scratch.py: your experiments")


def test_starter_scratch_prints_a_batch_from_the_candidates_get_batch(leaky, sandbox) -> None:
    report = run_scratch(package=leaky, files={"scratch.py": STARTER}, runner=sandbox, limits=QUICK)
    assert report.status == "passed" and report.error is None and report.scratch is not None
    assert report.scratch.exit_code == 0
    lines = report.scratch.stdout.splitlines()
    assert lines[0].startswith("x[0]: ") and lines[1].startswith("y[0]: ")
    # The leaky-mask starter's get_batch does not shift the targets: x and y print the same text.
    assert lines[0][6:] == lines[1][6:]
    fixed = run_scratch(package=leaky, files={"scratch.py": STARTER, "data.py": leaky.solution_files["data.py"]},
                        runner=sandbox, limits=QUICK)
    x_text, y_text = (line[6:] for line in fixed.scratch.stdout.splitlines()[:2])  # type: ignore[union-attr]
    assert x_text != y_text and eval(x_text)[1:] == eval(y_text)[:-1]


def test_an_exception_is_a_traceback_and_exit_status_one(leaky, sandbox) -> None:
    script = "import model\nprint('before')\nraise ValueError('boom')\n"
    report = run_scratch(package=leaky, files={"scratch.py": script}, runner=sandbox, limits=QUICK)
    assert report.status == "failed" and report.scratch is not None and report.scratch.exit_code == 1
    assert report.scratch.stdout == "before\n"
    assert "ValueError: boom" in report.scratch.stderr and "Traceback" in report.scratch.stderr


def test_limits_stop_a_spinning_or_flooding_script(leaky, sandbox) -> None:
    spin = run_scratch(package=leaky, files={"scratch.py": "while True:\n    pass\n"}, runner=sandbox,
                       limits=Limits(cpu_seconds=2, wall_seconds=5.0))
    assert spin.status == "error" and spin.error is not None and spin.error.kind == "timeout"
    flood = run_scratch(package=leaky, files={"scratch.py": "while True:\n    print('x' * 1000)\n"},
                        runner=sandbox, limits=QUICK)
    assert flood.status == "error" and flood.error is not None and flood.error.kind == "output"
    assert flood.scratch is not None and flood.scratch.truncated and flood.scratch.stdout.startswith("x" * 1000)
