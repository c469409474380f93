"""A harness bundle assembled under a temporary data directory and run without the sandbox: the fast
way probe tests measure model files (gpt-v1's conftest and llama-v1's share it). in_judge runs the split
harness (judge/agent, app/engine/kit): the agent, the bundle's main.py, in a child process on the files
(forked from a process that has imported torch already, agent_zygote.py), the judge's measure() in this
process, which never imports the candidate's modules."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from itertools import count
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from agent_zygote import zygote  # beside this file, on sys.path as this module is

Measure = Callable[..., dict[str, Any]]
IMPORT_SECONDS = 300.0


def assemble(bundle_dir: Callable[[], Path], data_dir: Path) -> Path:
    """The interface's harness bundle, built under `data_dir` (the environment is left as it was)."""
    old = os.environ.get("DOJO_DATA_DIR")
    os.environ["DOJO_DATA_DIR"] = str(data_dir)
    try:
        return bundle_dir()
    finally:
        if old is None:
            os.environ.pop("DOJO_DATA_DIR", None)
        else:
            os.environ["DOJO_DATA_DIR"] = old


def in_judge(runner: ModuleType, harness_dir: Path, tmp_path_factory: pytest.TempPathFactory, prefix: str, *,
             schema: str, view: Any = None) -> Measure:
    """measure(files, probes=None) -> the judge's result dict for these files: the bundle's agent in a
    child process (forked by the zygote), the judge (`runner.measure`, imported from the bundle on
    sys.path) in this one."""
    from dojo_kit import judge as kit_judge  # the bundle's kit: the probes catch its exception classes
    from dojo_kit.client import AgentClient

    numbers = count()

    def run(files: dict[str, str], probes: list[str] | None = None) -> dict[str, Any]:
        directory = tmp_path_factory.mktemp(f"{prefix}{next(numbers)}")
        for name, text in files.items():
            (directory / name).write_text(text)
        # A loaded test machine imports the candidate's files slower than the graders' limit allows for.
        job = {"files": sorted(files), "probes": probes, "import_seconds": IMPORT_SECONDS}
        (directory.parent / f"{directory.name}.json").write_text(json.dumps(job))
        agent_in, judge_out = os.pipe()
        judge_in, agent_out = os.pipe()
        env = dict(os.environ, DOJO_AGENT_FDS=f"{agent_in},{agent_out}", DOJO_CANDIDATE_DIR=str(directory),
                   DOJO_INPUT=str(directory.parent / f"{directory.name}.json"))
        env.pop("DOJO_PROGRESS_FD", None)
        agent = zygote().start(str(harness_dir / "main.py"), cwd=str(directory.parent), env=env,
                               fds=(agent_in, agent_out))
        os.close(agent_in)
        os.close(agent_out)
        client = AgentClient(judge_out, judge_in)
        try:
            result = kit_judge.judge(client, job, runner.measure, schema=schema, view=view)
            client.bye()
        except BaseException:
            agent.kill()  # the judge's own failure is the one to see
            raise
        finally:
            os.close(judge_out)
            os.close(judge_in)
            agent.wait(timeout=60)
        if agent.returncode != 0:
            raise RuntimeError(f"the agent exited with {agent.returncode}")
        return kit_judge.clean(result)

    return run

