"""Grading harness for the llama-v1 interface: measures the candidate's code and writes result.json.

Runs inside the sandbox next to untrusted code. It imports nothing from the app: only the standard
library, torch, its own package beside this file and gpt-v1's probe package (dojo_harness), which the
bundle copies beside it. It only measures; the trusted grader judges.
"""

import os
import sys

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

# `python -I` does not put the script's directory on sys.path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from llama_harness.runner import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
