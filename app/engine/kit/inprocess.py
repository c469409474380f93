"""BENCH MODE ONLY: the judge and the agent in one process, as the harness ran before the split.

Never used for grading: in one process the candidate's code can rewrite the judge (that is why the
split exists). `dojo bench --only split` runs a bundle whose main.py calls main() below beside the
normal split bundle, to measure what the split costs (app/bench/split_times.py).
"""

import json
import os

from .agent import Agent, import_candidate
from .client import CandidateError
from .judge import judge, write_result
from .leave import leave


class InProcessClient:
    """AgentClient's interface, answered by an Agent object in this process (no pipes, no wire)."""

    def __init__(self, agent):
        self.agent = agent
        self.requests = 0

    def call(self, op, timeout=None, **args):
        self.requests += 1
        reply = self.agent.answer({"op": op, "args": args})
        if not reply["ok"]:
            raise CandidateError(reply["error"])
        return reply["result"]

    def bye(self):
        return None


def main(register, names, measure, *, schema, view=None):
    """Import the candidate, run the judge's measure against it here, write DOJO_OUT/result.json, and end
    the process as the split's agent and judge do (leave.py), so the bench compares like with like."""
    candidate_dir = os.environ["DOJO_CANDIDATE_DIR"]
    modules, error = import_candidate(candidate_dir, names)
    agent = Agent(candidate_dir, modules, error)
    if error is None:
        register(agent)
    with open(os.environ["DOJO_INPUT"], encoding="utf-8") as fh:
        job = json.load(fh)
    write_result(os.environ["DOJO_OUT"], judge(InProcessClient(agent), job, measure, schema=schema, view=view))
    leave(0)
