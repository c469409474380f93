"""Runs INSIDE the sandbox as its first process: starts the harness, then reports back on a pipe.

Stdlib only (the app is not visible in the sandbox). Protocol on the status fd (argv[1]):
  {"started": true}\\n                       as soon as the launcher runs
  {"rc": int, "cpu": float, "read": str}\\n  after the harness exits; then the raw result bytes.
The launcher makes itself non-dumpable so candidate code (same uid) cannot ptrace it or open its fds.
"""

import ctypes
import json
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from result_file import RESULT_NAME, read_capped_file  # noqa: E402

PR_SET_DUMPABLE = 4


def main() -> None:
    status_fd = int(sys.argv[1])
    max_result_bytes = int(sys.argv[2])
    os.set_inheritable(status_fd, False)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.write(status_fd, b'{"started": true}\n')
    harness_main = os.path.join(os.environ["DOJO_HARNESS_DIR"], "main.py")
    try:
        rc = subprocess.call([sys.executable, "-I", "-B", harness_main], close_fds=True)
    except OSError:
        rc = 127
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    data, reason = read_capped_file(os.environ["DOJO_OUT"], RESULT_NAME, max_bytes=max_result_bytes)
    header = {"rc": rc, "cpu": usage.ru_utime + usage.ru_stime, "read": reason}
    payload = json.dumps(header).encode() + b"\n" + (data or b"")
    view = memoryview(payload)
    while view:
        written = os.write(status_fd, view)
        view = view[written:]


if __name__ == "__main__":
    main()
