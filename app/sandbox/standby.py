"""Runs INSIDE the sandbox as the harness process: preloads modules, waits for its one job, runs it.

Stdlib only (bound next to launcher.py). The launcher starts it before any job exists, so a worker
can keep a sandbox ready with torch already imported. Until the job message arrives nothing of a
job is in the sandbox: the candidate, harness and input directories are empty read-only binds that
the trusted side fills just before it sends the message, and this process runs no untrusted code.

Protocol (argv: GO_FD ACK_FD READY_FD PRELOAD, PRELOAD a comma-separated list of modules, maybe empty):
  READY_FD (write) one byte once the modules are imported; then closed.
  GO_FD    (read)  one JSON object {"cpu_seconds": int, "cpu_grace": int}, then EOF. EOF alone means
                   the sandbox is retired without a job: exit without running anything.
  ACK_FD   (write) {"accepted": true, "warm_cpu": float}\\n once the job's CPU limit is set, just
                   before the harness starts; then closed, so the candidate can never write to it.
"""

import json
import math
import os
import resource
import runpy
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol import HARNESS_DIR_VAR  # noqa: E402

del sys.path[0]  # the harness runs with the sys.path it would have had without its neighbours here


def _read_all(fd):
    chunks = []  # type: ignore[var-annotated]
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _limit_cpu_from_now(cpu_seconds, grace):
    """RLIMIT_CPU counts the whole process, so start the job's allowance after what the preload used."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    soft = math.ceil(used) + cpu_seconds
    hard = soft + grace
    _, current_hard = resource.getrlimit(resource.RLIMIT_CPU)
    if current_hard != resource.RLIM_INFINITY:  # limits only ever go down in here
        hard = min(hard, current_hard)
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    return used


def main():
    go_fd, ack_fd, ready_fd = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    for name in filter(None, sys.argv[4].split(",")):
        __import__(name)
    os.write(ready_fd, b"1")
    os.close(ready_fd)
    message = _read_all(go_fd)
    os.close(go_fd)
    if not message:
        os._exit(0)
    job = json.loads(message)
    used = _limit_cpu_from_now(int(job["cpu_seconds"]), int(job["cpu_grace"]))
    os.write(ack_fd, json.dumps({"accepted": True, "warm_cpu": used}).encode() + b"\n")
    os.close(ack_fd)
    harness_main = os.path.join(os.environ[HARNESS_DIR_VAR], "main.py")
    sys.argv = [harness_main]
    runpy.run_path(harness_main, run_name="__main__")


if __name__ == "__main__":
    main()
