"""The pipeline-v1 agent: runs INSIDE the sandbox, imports the candidate's data.py and train.py (and the
scenario's model.py) and answers the judge.

Only the standard library, torch, dojo_kit/ and pipeline_harness/ beside this file. It measures nothing
and writes no result: the judge (judge.py, another process outside the sandbox) asks, computes and writes.
"""

import json
import os
import sys

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pipeline_harness import eager_dynamo  # noqa: E402

eager_dynamo.install()  # before torch.optim first asks for torch._dynamo (eager_dynamo.py says why)

from dojo_kit import agent, model_ops  # noqa: E402
from pipeline_harness import agent_ops  # noqa: E402


def register_ops(a):
    model_ops.register(a)
    agent_ops.register(a)


def module_names():
    with open(os.environ["DOJO_INPUT"], encoding="utf-8") as fh:
        files = json.load(fh).get("files", ["data.py", "train.py"])
    return [f[:-3] for f in files if isinstance(f, str) and f.endswith(".py")]


if __name__ == "__main__":
    agent.run(register_ops, names=module_names())  # ends the process (dojo_kit/leave.py)
