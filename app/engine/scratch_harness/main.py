"""Runs the candidate's scratch.py inside the sandbox: experiments, never graded.

The candidate's files are importable (model.py, data.py, ...), and the training corpus is copied to
corpus.txt in the working directory. Whatever scratch.py prints is the output; this script only adds
the exit status in result.json. Standard library only (scratch.py imports torch itself).
"""

import json
import os
import runpy
import shutil
import sys
import traceback

SCHEMA = "dojo.scratch/1"


def _exit_status(exc):
    """What `python scratch.py` would exit with after SystemExit(code)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def main():
    candidate = os.environ["DOJO_CANDIDATE_DIR"]
    shutil.copyfile(os.path.join(os.environ["DOJO_HARNESS_DIR"], "corpus.txt"), "corpus.txt")
    sys.path.insert(0, candidate)
    sys.argv = ["scratch.py"]
    try:
        runpy.run_path(os.path.join(candidate, "scratch.py"), run_name="__main__")
        status = 0
    except SystemExit as exc:
        status = _exit_status(exc)
    except BaseException:  # the candidate's own error: show it as Python would, then exit 1
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    with open(os.path.join(os.environ["DOJO_OUT"], "result.json"), "w", encoding="utf-8") as fh:
        json.dump({"schema": SCHEMA, "error": None, "exit_code": status}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
