"""Ending the agent's and the judge's processes at once, once their work is written.

Python's teardown with torch imported takes about 0.3 s (module finalisers, torch's atexit hooks, and
torch._dynamo's when torch.optim pulled it in), and a grading waits for both processes to end: three
tenths of a second of every grading spent tidying memory the kernel frees anyway. In the agent it also
means the candidate's exit hooks never run.
"""

import contextlib
import os
import sys


def leave(code):
    """Flush stdout and stderr, then end the process with `code`, skipping the interpreter's teardown."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(int(code))
