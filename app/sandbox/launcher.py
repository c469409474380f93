"""Runs INSIDE the sandbox as its first process: starts the harness, then reports back on a pipe.

Stdlib only (the app is not visible in the sandbox; protocol.py, result_file.py, seccomp.py and
standby.py are bound next to this file). argv: STATUS_FD MAX_RESULT_BYTES fork|nofork GO_FD ACK_FD READY_FD PRELOAD.
Protocol on the status fd:
  {"started": true}\\n                       as soon as the launcher runs
  {"rc": int, "cpu": float, "read": str}\\n  after the harness exits; then the raw result bytes.
The harness process is standby.py, which may preload modules and waits on GO_FD for its one job
(see there); it alone holds GO_FD, ACK_FD and READY_FD. The launcher makes itself non-dumpable so candidate
code (same uid) cannot ptrace it or open its fds. With "nofork" the harness gets a seccomp filter
that refuses new processes.
"""

import ctypes
import json
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol import AGENT_FDS_VAR, OUT_VAR, PROGRESS_FD_VAR  # noqa: E402
from result_file import RESULT_NAME, read_capped_file  # noqa: E402
from seccomp import no_fork_program  # noqa: E402

PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _filter_installer(libc, program):
    """preexec_fn for the harness: load the no-fork filter, or die rather than run unfiltered."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))

    def install(keep_alive=(buffer, fprog)):  # the default pins the buffers for the child
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            os._exit(126)
        if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
            os._exit(126)

    return install


def main() -> None:
    status_fd = int(sys.argv[1])
    max_result_bytes = int(sys.argv[2])
    no_fork = sys.argv[3] == "nofork"
    go_fd, ack_fd, ready_fd, preload = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
    os.set_inheritable(status_fd, False)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.write(status_fd, b'{"started": true}\n')
    program = no_fork_program() if no_fork else None
    preexec = _filter_installer(libc, program) if program else None
    standby = os.path.join(os.path.dirname(os.path.abspath(__file__)), "standby.py")
    argv = [sys.executable, "-I", "-B", standby, str(go_fd), str(ack_fd), str(ready_fd), preload]
    # The harness keeps the progress pipe (display only) and the agent's ends of the judge's channel.
    progress = os.environ.get(PROGRESS_FD_VAR, "")
    agent = [int(fd) for fd in os.environ.get(AGENT_FDS_VAR, "").split(",") if fd.isdigit()]
    pass_fds = (go_fd, ack_fd, ready_fd, *((int(progress),) if progress.isdigit() else ()), *agent)
    try:
        child = subprocess.Popen(argv, close_fds=True, pass_fds=pass_fds, preexec_fn=preexec)
    except OSError:
        child = None
    finally:
        for fd in (go_fd, ack_fd, ready_fd, *agent):
            os.close(fd)
    rc = child.wait() if child is not None else 127
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    data, reason = read_capped_file(os.environ[OUT_VAR], RESULT_NAME, max_bytes=max_result_bytes)
    header = {"rc": rc, "cpu": usage.ru_utime + usage.ru_stime, "read": reason}
    payload = json.dumps(header).encode() + b"\n" + (data or b"")
    view = memoryview(payload)
    while view:
        written = os.write(status_fd, view)
        view = view[written:]


if __name__ == "__main__":
    main()
