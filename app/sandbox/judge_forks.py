"""Runs OUTSIDE the sandbox: the judge fork server. It imports torch once, then forks each judge from
itself, so that a grading's judge starts with torch already imported instead of importing it again
(about 1.5 s of CPU a grading on a two-core worker, for a module that is the same every time).

Only the project's own code ever runs here or in a judge: a judge never imports the candidate's code
(judge_process.py), and nothing the sandbox sends reaches this process. A judge is what
judge_standby.py is, started by fork instead of exec: it takes the environment, directory and file
descriptors of the request, waits on its stdin for the job line and runs that bundle's judge.py.

The development runner (subprocess_runner.py: no sandbox, NOT a security boundary, the candidate's code
runs as the service's user either way) also asks for its agents here: a request with "agent" forks a
child that becomes `python -I -B MAIN` with the run's limits and priority, torch already imported, as a
warm standby sandbox's agent starts. The sandbox runner never asks for one.

Stdlib only until the preload. argv: SOCKET_FD PRELOAD (comma-separated modules). The socket is
AF_UNIX SOCK_SEQPACKET, one message per request or reply:
  ready    JSON {"ready": true} once the preload is imported (the runner forks nothing before it).
  request  JSON {"env": {...}, "cwd": "...", "fd_env": {"VAR": [i, ...]}} with file descriptors as
           SCM_RIGHTS: [stdin, stderr, *others]; each VAR of fd_env is set to the child's numbers of
           those descriptors (indexes into the list), comma-separated. An agent's request adds
           "agent": {"main": path, "rlimits": [[resource, soft, hard], ...], "nice": n} and sends
           [stdout, stderr, *others]; its stdin is /dev/null.
  reply    JSON {"pid": pid} with the child's pidfd as SCM_RIGHTS (the runner signals through it, so a
           reused pid can never be hit), or {"error": "..."} when the fork failed.
  later    JSON {"exit": pid, "returncode": code} once the child has ended (negative: the signal).
End of file on the socket ends the server; children still running are the runner's to end.
"""

import array
import contextlib
import json
import os
import runpy
import select
import signal
import socket
import sys
import traceback

MAX_MESSAGE = 1 << 20
# Beside this script (not importable: a script run with -I has no directory of its own on sys.path).
PROCESS_LIMITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "process_limits.py")
_process_limits: dict = {}  # its functions, loaded once by main() for every agent forked after
MAX_FDS = 16


def receive(sock):
    """One message and the descriptors that came with it (both ends of the socket read this way)."""
    fds = array.array("i")
    message, ancillary, _, _ = sock.recvmsg(MAX_MESSAGE, socket.CMSG_SPACE(MAX_FDS * fds.itemsize))
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    return message, list(fds)


def send(sock, payload, fds=()):
    """One JSON message, with `fds` as SCM_RIGHTS (the receiver gets its own copies)."""
    data = json.dumps(payload).encode()
    if fds:
        sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    else:
        sock.send(data)


def _become_child(sock, wakeup_fds, request, fds):
    """In the child: take the request's descriptors, environment and directory, then run the judge the
    job line names, exactly as judge_standby.py does, or the agent's main. Never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        sock.close()
        for fd in wakeup_fds:
            os.close(fd)
        os.setsid()
        agent = request.get("agent")
        devnull = os.open(os.devnull, os.O_RDWR)
        if agent:
            stdio, others = (devnull, fds[0], fds[1]), fds[2:]
        else:
            stdio, others = (fds[0], devnull, fds[1]), fds[2:]
        for target, fd in enumerate(stdio):
            os.dup2(fd, target)
        for fd in {*stdio}:
            os.close(fd)
        env = dict(request["env"])
        for name, indexes in request.get("fd_env", {}).items():
            env[name] = ",".join(str(others[i]) for i in indexes)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(request["cwd"])
        if agent:
            # Its CPU time counts from the fork: the preloaded import is not charged to the run.
            _process_limits["apply_rlimits"](agent["rlimits"])
            _process_limits["lower_priority"](agent["nice"])
            sys.argv = [agent["main"]]
            sys.path[0] = os.path.dirname(agent["main"])  # as `python -I -B MAIN` has it
            runpy.run_path(agent["main"], run_name="__main__")
        else:
            line = os.fdopen(0, "rb", buffering=0).readline()
            if line:
                judge = os.path.join(json.loads(line)["harness_dir"], "judge.py")
                sys.argv = [judge]
                runpy.run_path(judge, run_name="__main__")  # a judge ends its own process (kit/leave.py)
        code = 0
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _reap(sock):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        send(sock, {"exit": pid, "returncode": os.waitstatus_to_exitcode(status)})


def main():
    sock = socket.socket(fileno=int(sys.argv[1]))
    for name in filter(None, sys.argv[2].split(",")):
        __import__(name)
    _process_limits.update(runpy.run_path(PROCESS_LIMITS))
    send(sock, {"ready": True})
    # A child's exit wakes the loop through this pipe (the handler itself does nothing).
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    while True:
        readable, _, _ = select.select([sock.fileno(), wake_r], [], [])
        if wake_r in readable:
            while True:
                try:
                    if not os.read(wake_r, 512):
                        break
                except BlockingIOError:
                    break
            _reap(sock)
        if sock.fileno() not in readable:
            continue
        message, fds = receive(sock)
        if not message:
            return 0
        try:
            request = json.loads(message)
            pid = os.fork()
        except (OSError, ValueError) as exc:
            for fd in fds:
                os.close(fd)
            send(sock, {"error": str(exc)})
            continue
        if pid == 0:
            _become_child(sock, (wake_r, wake_w), request, fds)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        send(sock, {"pid": pid}, [pidfd])
        os.close(pidfd)


if __name__ == "__main__":
    sys.exit(main())
