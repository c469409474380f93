"""Runs OUTSIDE the sandbox as the judge process before it has a job: preloads modules (torch), then
waits for its one job, like the sandbox's own standby.py does inside.

Stdlib only until the job arrives. argv: PRELOAD (comma-separated modules, maybe empty). stdin: one JSON
line {"harness_dir": "..."} starts the job: that bundle's judge.py runs in this process, with the
environment the runner gave this one (app/sandbox/judge_process.py). EOF without a line retires it.
"""

import json
import os
import runpy
import sys


def main():
    for name in filter(None, sys.argv[1].split(",")):
        __import__(name)
    line = sys.stdin.readline()
    if not line:
        return 0
    job = json.loads(line)
    judge = os.path.join(job["harness_dir"], "judge.py")
    sys.argv = [judge]
    runpy.run_path(judge, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
