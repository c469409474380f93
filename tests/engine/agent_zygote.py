"""Agents for the probe tests, forked from a process that has already imported torch.

Every probe test measures its files through the split harness: the judge in the test process, the
bundle's agent (main.py) in a child. A fresh interpreter spends about 1.2 s importing torch before the
agent can answer, and the probe tests start a few hundred agents. The zygote imports torch once per
test process and forks one child per agent; the child becomes the agent exactly as `python -I -B main.py`
would run it (its environment, working directory and pipes), minus the import. Gradings never start
agents this way: they run the real sandbox (app/sandbox), which the sandbox and grading tests cover.

Protocol on a SOCK_SEQPACKET socket pair: the test sends one JSON request {"main", "cwd", "env"} with
the agent's two pipe ends attached (SCM_RIGHTS); the zygote forks and answers {"pid"}, then, when that
child has ended, {"status"} (its exit code, or minus the signal that ended it). One agent at a time. The
zygote first says its own {"pid"}; it is no child of the test process (it detaches at start, so the
sandbox tests that count this process's children see none of it) and it ends when its socket closes.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys

ZYGOTE = r'''
import json, os, runpy, socket, sys, traceback
if os.fork():  # detach: the test process's children stay its own (the sandbox tests count them)
    os._exit(0)
import torch
torch.set_num_threads(1)
sock = socket.socket(fileno=int(sys.argv[1]))
sock.send(json.dumps({"pid": os.getpid()}).encode())
while True:
    try:
        message, fds, _, _ = socket.recv_fds(sock, 1 << 20, 2)
    except OSError:
        break
    if not message:
        break
    request = json.loads(message)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            sock.close()
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            os.environ["DOJO_AGENT_FDS"] = f"{fds[0]},{fds[1]}"
            sys.argv = [request["main"]]
            runpy.run_path(request["main"], run_name="__main__")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    for fd in fds:
        os.close(fd)
    sock.send(json.dumps({"pid": pid}).encode())
    _, status = os.waitpid(pid, 0)
    sock.send(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode())
'''


class AgentProcess:
    """One forked agent: its pid, and its exit code once `wait` has read it."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self._zygote, self.pid, self.returncode = zygote, pid, None

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    def wait(self, timeout: float) -> int:
        """The agent's exit code; an agent still running after `timeout` is killed (the zygote serves
        the next one only after this one has ended)."""
        if self.returncode is None:
            try:
                status = self._zygote.read(timeout)
            except TimeoutError:
                self.kill()
                status = self._zygote.read(10)
            self.returncode = int(status["status"])
        return self.returncode


class Zygote:
    """The torch-imported process this test process forks its agents from (started on first use)."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = ours
        subprocess.run([sys.executable, "-I", "-B", "-c", ZYGOTE, str(theirs.fileno())],
                       pass_fds=(theirs.fileno(),), check=True)
        theirs.close()
        self.pid = int(self.read(60)["pid"])

    def alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def start(self, main: str, *, cwd: str, env: dict[str, str], fds: tuple[int, int]) -> AgentProcess:
        request = json.dumps({"main": main, "cwd": cwd, "env": env}).encode()
        socket.send_fds(self._sock, [request], list(fds))
        return AgentProcess(self, int(self.read(60)["pid"]))

    def read(self, timeout: float) -> dict[str, int]:
        self._sock.settimeout(timeout)
        message = self._sock.recv(4096)
        if not message:
            raise RuntimeError("the agent zygote ended")
        return json.loads(message)

    def close(self) -> None:
        """Its socket closed, the zygote ends (as it does when this process ends)."""
        self._sock.close()


_zygote: Zygote | None = None


def zygote() -> Zygote:
    """This test process's zygote, started again if it has ended."""
    global _zygote
    if _zygote is None or not _zygote.alive():
        _zygote = Zygote()
        atexit.register(_zygote.close)
    return _zygote
