"""The judge process: the trusted half of a grading run, started OUTSIDE the sandbox.

A harness bundle that has a judge (judge.py next to main.py) is run in two processes. Inside the
sandbox, main.py is the agent: it imports the candidate's code and answers requests. Out here,
judge.py composes the requests, computes every measurement and writes result.json into a directory
of its own that the sandbox cannot see (app/engine/kit/judge.py). The two talk over a pair of pipes,
the AgentChannel; the candidate's process holds only its ends of those pipes, so it can neither write
the judge's result nor signal or trace the judge (another pid namespace, another uid, a seccomp filter
without ptrace).

The judge runs only the project's own code, on data from the agent that cannot execute (wire.py),
with an address-space limit of its own and at the sandbox's lower priority (it sets both itself).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.core.settings import get_settings
from app.sandbox.job import HarnessJob
from app.sandbox.judge_server import JUDGE_BASE_ENV, ForkedProcess, ForkServerError, judge_fork_server
from app.sandbox.result_file import ResultRead, read_result_file

logger = logging.getLogger(__name__)

AGENT_FDS_VAR = "DOJO_AGENT_FDS"
JUDGE_ENTRY = "judge.py"
JUDGE_STANDBY = str(Path(__file__).resolve().parent / "judge_standby.py")
# The judge's exit code when the agent vanished mid-run (app/engine/kit/judge.py EXIT_AGENT_GONE): the
# sandbox's end (a limit, a crash) says why, and the judge writes no result.
EXIT_AGENT_GONE = 3
# After the judge has finished, the agent has this long to exit on its own before the sandbox is killed
# (a candidate that ignores "bye", or an import that never ends after the import limit).
AGENT_GRACE_SECONDS = 2.0
JUDGE_MEMORY_BYTES = 3 * 1024 * 1024 * 1024


def has_judge(harness_dir: Path | str) -> bool:
    """Whether a harness bundle runs as judge + agent (every interface harness does; scratch does not)."""
    return os.path.isfile(os.path.join(harness_dir, JUDGE_ENTRY))


@dataclass
class AgentChannel:
    """Two pipes: requests judge -> agent and replies agent -> judge. The agent's ends go into the
    sandbox; the judge's ends go to the judge process and are closed here once it has started."""

    agent_in: int  # read end of the requests (sandbox)
    agent_out: int  # write end of the replies (sandbox)
    judge_out: int  # write end of the requests (judge)
    judge_in: int  # read end of the replies (judge)
    _closed: set[int] = field(default_factory=set)

    @classmethod
    def open(cls) -> AgentChannel:
        agent_in, judge_out = os.pipe()
        judge_in, agent_out = os.pipe()
        return cls(agent_in=agent_in, agent_out=agent_out, judge_out=judge_out, judge_in=judge_in)

    @property
    def agent_fds(self) -> tuple[int, int]:
        return self.agent_in, self.agent_out

    @property
    def agent_env(self) -> str:
        """DOJO_AGENT_FDS for the agent, as the fd numbers it inherits."""
        return f"{self.agent_in},{self.agent_out}"

    def close(self, *fds: int) -> None:
        for fd in fds:
            if fd not in self._closed:
                self._closed.add(fd)
                with contextlib.suppress(OSError):
                    os.close(fd)

    def close_agent_ends(self) -> None:
        self.close(self.agent_in, self.agent_out)

    def close_all(self) -> None:
        self.close(self.agent_in, self.agent_out, self.judge_out, self.judge_in)


class JudgeProcess:
    """One judge process: started as a standby (preloading torch while nothing is known of the job),
    given its one job by begin(), always ended by finish() or retire()."""

    def __init__(self, proc: subprocess.Popen[bytes] | ForkedProcess, workdir: Path, progress_fd: int | None) -> None:
        self._proc = proc
        self._workdir = workdir
        self.progress_fd = progress_fd  # the read end of the judge's progress lines (ours to close)
        self.returncode: int | None = None
        self._finished = threading.Event()
        self._max_result_bytes = 0

    @property
    def out_dir(self) -> Path:
        return self._workdir / "out"

    def alive(self) -> bool:
        return self._proc.poll() is None

    @property
    def host_pid(self) -> int:
        return self._proc.pid

    def begin(self, job: HarnessJob) -> None:
        """Hand the job over: its input, then the bundle whose judge.py runs."""
        self._max_result_bytes = job.limits.max_result_bytes
        (self._workdir / "input.json").write_text(json.dumps(dict(job.input)), encoding="utf-8")
        line = json.dumps({"harness_dir": os.path.realpath(job.harness_dir)}).encode() + b"\n"
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(line)
            self._proc.stdin.close()
        except BrokenPipeError:  # the standby died: finish() finds no result and says so
            pass

    def watch(self, on_exit: Callable[[], None], grace: float = AGENT_GRACE_SECONDS) -> threading.Thread:
        """Call on_exit() `grace` seconds after the judge exits, unless finish() came first (to end an
        agent that outlives its judge: it ignored "bye", or its import outlasted the import limit)."""

        def wait_then_call() -> None:
            self._proc.wait()
            if not self._finished.wait(grace):
                on_exit()

        thread = threading.Thread(target=wait_then_call, name="judge-watch", daemon=True)
        thread.start()
        return thread

    def finish(self, timeout: float = 10.0) -> ResultRead:
        """Wait for the judge (killing it after `timeout`), read its result, remove its directory."""
        self._finished.set()
        try:
            try:
                self.returncode = self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self.returncode = self._proc.wait()
            if self.returncode not in (0, EXIT_AGENT_GONE):
                stderr = (self._workdir / "stderr").read_bytes()[-3000:]
                logger.error("the judge failed (exit %s): %s", self.returncode, stderr.decode(errors="replace"))
            return read_result_file(self.out_dir, max_bytes=self._max_result_bytes or 4 * 1024 * 1024)
        finally:
            self._cleanup()

    def retire(self) -> None:
        """End a judge that will get no job (or whose run is over): idempotent."""
        self._finished.set()
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._cleanup()

    def _cleanup(self) -> None:
        if self.progress_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.progress_fd)
            self.progress_fd = None
        shutil.rmtree(self._workdir, ignore_errors=True)

    @property
    def failed(self) -> bool:
        """The judge itself broke (not the candidate): an internal error, never the candidate's fault."""
        return self.returncode not in (0, EXIT_AGENT_GONE, None)


def standby_judge(channel: AgentChannel, *, python: str | None = None, nice: int = 0,
                  preload: tuple[str, ...] = (), max_result_bytes: int = 0) -> JudgeProcess:
    """Start a judge process that preloads `preload` and waits for begin(); takes the judge's ends of
    the channel (closed here once the child has them) and makes its progress pipe. With
    JUDGE_FORK_SERVER on, the judge is forked from this process's fork server with torch imported
    (judge_server.py); without it, or when the server cannot, it is a fresh interpreter."""
    workdir = Path(tempfile.mkdtemp(prefix="dojo-judge-"))
    progress_r, progress_w = os.pipe()
    try:
        (workdir / "out").mkdir()
        env = {
            **JUDGE_BASE_ENV, "HOME": str(workdir), "TMPDIR": str(workdir),
            "DOJO_JUDGE_INPUT": str(workdir / "input.json"),
            "DOJO_JUDGE_OUT": str(workdir / "out"),
            # Applied by the judge itself at start (no Python between fork and exec in a threaded server).
            "DOJO_JUDGE_LIMITS": json.dumps({"memory_bytes": JUDGE_MEMORY_BYTES, "nice": nice}),
        }
        fds = (channel.judge_out, channel.judge_in, progress_w)
        with open(workdir / "stderr", "wb") as stderr:
            proc: subprocess.Popen[bytes] | ForkedProcess | None = None
            if get_settings().judge_fork_server:
                proc = _forked_judge(env, workdir, stderr.fileno(), fds, python=python)
            if proc is None:
                env.update({"DOJO_JUDGE_FDS": f"{channel.judge_out},{channel.judge_in}",
                            "DOJO_PROGRESS_FD": str(progress_w)})
                argv = [python or sys.executable, "-I", "-B", JUDGE_STANDBY, ",".join(preload)]
                proc = subprocess.Popen(
                    argv, env=env, cwd=str(workdir), pass_fds=fds,
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True,
                )  # fmt: skip
    except BaseException:
        os.close(progress_r)
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    finally:
        os.close(progress_w)
        channel.close(channel.judge_out, channel.judge_in)
    judge = JudgeProcess(proc, workdir, progress_r)
    judge._max_result_bytes = max_result_bytes
    return judge


def _forked_judge(env: dict[str, str], workdir: Path, stderr: int, fds: tuple[int, int, int], *,
                  python: str | None) -> ForkedProcess | None:
    """A judge forked from the fork server, its stdin a pipe of ours; None when the server cannot."""
    server = judge_fork_server(python)
    if server is None:
        return None
    stdin_r, stdin_w = os.pipe()
    try:
        proc = server.spawn(env=env, cwd=str(workdir), stdin=stdin_r, stderr=stderr, fds=fds,
                            fd_env={"DOJO_JUDGE_FDS": [0, 1], "DOJO_PROGRESS_FD": [2]})
    except ForkServerError:
        logger.exception("the judge fork server failed: starting the judge as a new process")
        os.close(stdin_w)
        return None
    finally:
        os.close(stdin_r)
    proc.stdin = os.fdopen(stdin_w, "wb")
    return proc


def start_judge(job: HarnessJob, channel: AgentChannel, *, python: str | None = None, nice: int = 0) -> JudgeProcess:
    """A judge for this job at once (a cold start: it imports what it needs itself)."""
    judge = standby_judge(channel, python=python, nice=nice)
    judge.begin(job)
    return judge
