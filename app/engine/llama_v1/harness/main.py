"""The llama-v1 agent: runs INSIDE the sandbox, imports the candidate's files and answers the judge.

Only the standard library, torch, dojo_kit/, the shared lm_probes/ (whose requests llama-v1's models
answer too) and llama_harness/ beside this file. It measures nothing and writes no result: the judge
(judge.py, another process outside the sandbox) asks, computes and writes.
"""

import json
import os
import sys

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

# `python -I` does not put the script's directory on sys.path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dojo_kit import agent, model_ops  # noqa: E402
from llama_harness import agent_ops as llama_agent_ops  # noqa: E402
from lm_probes import (  # noqa: E402
    agent_generation,
    agent_interface,
    agent_ops,
    agent_structure,
    agent_tracing,
    agent_training,
)

# The shared requests (gpt-v1 registers the same), then llama-v1's: its register() puts train.py
# behind TrainModule, so the shared training requests call train_step with one micro-batch.
AGENT_OPS = (model_ops, agent_ops, agent_interface, agent_tracing, agent_structure, agent_generation, agent_training,
             llama_agent_ops)


def register_ops(a):
    for ops in AGENT_OPS:
        ops.register(a)


def module_names():
    with open(os.environ["DOJO_INPUT"], encoding="utf-8") as fh:
        files = json.load(fh).get("files", ["model.py", "data.py"])
    return [f[:-3] for f in files if isinstance(f, str) and f.endswith(".py")]


if __name__ == "__main__":
    agent.run(register_ops, names=module_names())  # ends the process (dojo_kit/leave.py)
