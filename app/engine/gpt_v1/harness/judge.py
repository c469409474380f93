"""The gpt-v1 judge: runs OUTSIDE the sandbox, in its own process; never imports the candidate's code.

Composes every request to the agent (main.py, in the sandbox), computes every measurement and writes
result.json (dojo_kit/judge.py). Only the standard library, torch, dojo_kit/, lm_probes/ and dojo_harness/.
"""

import os
import sys

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from dojo_harness import RESULT_SCHEMA  # noqa: E402
from dojo_harness.runner import measure  # noqa: E402
from dojo_kit import judge  # noqa: E402

if __name__ == "__main__":
    torch.set_num_threads(1)
    judge.main(measure, schema=RESULT_SCHEMA)  # ends the process (dojo_kit/leave.py)
