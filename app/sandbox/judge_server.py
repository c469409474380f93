"""The runner's end of the judge fork server (judge_forks.py): at most one per process.

A judge imports torch like every other process of a grading. Forked from a server that imported it
once, a judge starts with it instead, and a grading costs the worker about 1.5 s less CPU (on the test
suite, one import in each of several hundred gradings). The server and its children run only the
project's own code, so forking them shares nothing a candidate wrote (a judge never imports it).

Only a process that grades again and again starts one (the local pool and each Celery pool process at
their start, the test suite before its gradings): a one-shot `dojo grade` or `dojo check` would wait for
an import it uses once. Until its server has imported torch, a process starts judges as new processes.

A forked judge is not this process's child: its exit code comes from the server, and it is signalled
through its pidfd (a pid the server has reaped may already belong to someone else). The server ends
when this process closes its socket, at exit at the latest.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import select
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from app.sandbox.judge_forks import receive, send

logger = logging.getLogger(__name__)

SERVER_SCRIPT = str(Path(__file__).resolve().parent / "judge_forks.py")
# The environment of the server and the base of every judge's, forked or not (judge_process.py).
JUDGE_BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
                  "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
# Judges are asked for only once the server is ready, and a fork takes milliseconds: waiting this long
# means the server is stuck.
SPAWN_TIMEOUT_SECONDS = 60.0
# The exit code given to a judge whose server died before reporting it: counted as the judge failing.
LOST_RETURNCODE = 255
PRELOAD = ("torch",)


class ForkServerError(OSError):
    """The fork server could not start a judge (it is gone, or the fork failed)."""


class ForkedProcess:
    """A judge (or a development runner's agent) forked by the server: the part of a subprocess.Popen
    that JudgeProcess and supervise() use."""

    def __init__(self, pid: int, pidfd: int) -> None:
        self.pid = pid
        self.stdin: IO[bytes] | None = None  # the write end of the judge's stdin (judge_process.py)
        self.stdout: IO[bytes] | None = None  # the read ends of an agent's output (subprocess_runner.py)
        self.stderr: IO[bytes] | None = None
        self.returncode: int | None = None
        self._pidfd: int | None = pidfd
        self._ended = threading.Event()
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired("judge", timeout or 0.0)
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        with self._lock:
            if self._pidfd is not None and self.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def ended(self, returncode: int) -> None:
        with self._lock:
            self.returncode = returncode
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None
        self._ended.set()

    def wait_without_server(self) -> None:
        """The server died first: wait for the process through its pidfd; its exit code is lost."""
        pidfd = self._pidfd
        if pidfd is not None:
            with contextlib.suppress(OSError):
                select.select([pidfd], [], [])
        self.ended(LOST_RETURNCODE)


class JudgeForkServer:
    """One fork server process and the thread that reads its replies."""

    def __init__(self, *, python: str, preload: tuple[str, ...]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._proc = subprocess.Popen(
                [python, "-I", "-B", SERVER_SCRIPT, str(theirs.fileno()), ",".join(preload)],
                env=JUDGE_BASE_ENV, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._sock = ours
        self._request_lock = threading.Lock()  # one request at a time: replies come in request order
        self._replies: queue.Queue[ForkedProcess | Exception] = queue.Queue()
        self._judges: dict[int, ForkedProcess] = {}
        self._judges_lock = threading.Lock()
        self._gone = False
        self._ready = threading.Event()
        threading.Thread(target=self._read_replies, name="judge-fork-server", daemon=True).start()

    def alive(self) -> bool:
        return not self._gone and self._proc.poll() is None

    def ready(self) -> bool:
        """Alive with its preload imported: a judge forked now starts at once."""
        return self._ready.is_set() and self.alive()

    def wait_ready(self, timeout: float) -> bool:
        return self._ready.wait(timeout) and self.alive()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def spawn(self, *, env: dict[str, str], cwd: str, stdin: int, stderr: int, fds: tuple[int, ...],
              fd_env: dict[str, list[int]]) -> ForkedProcess:
        """Fork a judge with this environment, directory, stdin and stderr, holding its own copies of
        `fds`; each variable of fd_env names some of them by index. The caller keeps its descriptors."""
        return self._fork({"env": env, "cwd": cwd, "fd_env": fd_env}, (stdin, stderr, *fds))

    def spawn_agent(self, *, main: str, env: dict[str, str], cwd: str, stdout: int, stderr: int,
                    fds: tuple[int, ...], fd_env: dict[str, list[int]], rlimits: list[tuple[int, int, int]],
                    nice: int) -> ForkedProcess:
        """Fork the development runner's agent: `python -I -B main` with this environment, directory,
        output, descriptors (as spawn), limits and priority, in a session of its own. Never for a
        sandboxed run: the candidate's code runs in this child as the service's user."""
        agent = {"main": main, "rlimits": [list(row) for row in rlimits], "nice": nice}
        return self._fork({"env": env, "cwd": cwd, "fd_env": fd_env, "agent": agent}, (stdout, stderr, *fds))

    def _fork(self, request: dict[str, object], fds: tuple[int, ...]) -> ForkedProcess:
        with self._request_lock:
            if not self.alive():
                raise ForkServerError("the judge fork server is not running")
            try:
                send(self._sock, request, fds)
                reply = self._replies.get(timeout=SPAWN_TIMEOUT_SECONDS)
            except (OSError, queue.Empty) as exc:
                # A late reply would answer the next request: this server is not asked again.
                self._gone = True
                with contextlib.suppress(OSError):
                    self._sock.shutdown(socket.SHUT_RDWR)
                raise ForkServerError(f"the judge fork server did not answer: {exc!r}") from None
        if isinstance(reply, Exception):
            raise ForkServerError(str(reply))
        return reply

    def close(self) -> None:
        """End the server (judges it forked keep running until their runs end them)."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5)
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    def _read_replies(self) -> None:
        while True:
            try:
                message, received = receive(self._sock)
            except OSError:
                message, received = b"", []
            if not message:
                break
            reply = json.loads(message)
            if reply.get("ready"):
                self._ready.set()
            elif "pid" in reply:
                judge = ForkedProcess(int(reply["pid"]), received[0])
                with self._judges_lock:
                    self._judges[judge.pid] = judge
                self._replies.put(judge)
            elif "exit" in reply:
                with self._judges_lock:
                    ended = self._judges.pop(int(reply["exit"]), None)
                if ended is not None:
                    ended.ended(int(reply["returncode"]))
            else:
                self._replies.put(ForkServerError(str(reply.get("error"))))
        self._gone = True
        self._replies.put(ForkServerError("the judge fork server stopped"))
        with self._judges_lock:
            orphans, self._judges = list(self._judges.values()), {}
        for judge in orphans:
            logger.error("the judge fork server stopped while judge %s ran", judge.pid)
            threading.Thread(target=judge.wait_without_server, daemon=True).start()


_servers: dict[tuple[int, str], JudgeForkServer] = {}
_servers_lock = threading.Lock()


def _key(python: str | None) -> tuple[int, str]:
    # Keyed by pid too: a process forked from this one (a Celery pool child) starts its own.
    return (os.getpid(), python or sys.executable)


def start_judge_fork_server(python: str | None = None) -> JudgeForkServer | None:
    """Start this process's fork server unless one runs (without waiting for its import); None when it
    cannot start, and judges are then started as new processes."""
    key = _key(python)
    with _servers_lock:
        server = _servers.get(key)
        if server is not None and server.alive():
            return server
        try:
            server = JudgeForkServer(python=key[1], preload=PRELOAD)
        except OSError:
            logger.exception("could not start the judge fork server")
            return None
        _servers[key] = server
        return server


def judge_fork_server(python: str | None = None) -> JudgeForkServer | None:
    """This process's fork server when it is ready to fork a judge; None when the process never started
    one, or while it imports torch. One that died is replaced for the next judge."""
    with _servers_lock:
        server = _servers.get(_key(python))
    if server is None or server.ready():
        return server
    if not server.alive():
        start_judge_fork_server(python)
    return None


def stop_judge_fork_server() -> None:
    """End this process's fork servers (a worker stopping; tests)."""
    with _servers_lock:
        mine = [key for key in _servers if key[0] == os.getpid()]
        servers = [_servers.pop(key) for key in mine]
    for server in servers:
        server.close()


def fork_server_pids() -> set[int]:
    """The pids of this process's running fork servers (tests and diagnostics: they are its children)."""
    with _servers_lock:
        return {server.pid for key, server in _servers.items() if key[0] == os.getpid() and server.alive()}
