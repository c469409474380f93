"""The seccomp filters: compiled by libseccomp, and effective on a real process and inside the sandbox."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.seccomp import denylist_program, no_fork_program

from .helpers import job_for

x86_64_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="syscall numbers below are x86_64's")


@pytest.mark.parametrize("build", [denylist_program, no_fork_program])
def test_programs_come_from_libseccomp_as_whole_small_instructions(build: object) -> None:
    program = build()  # type: ignore[operator]
    assert program is not None, "libseccomp (apt package libseccomp2) or pyseccomp is missing"
    assert len(program) % 8 == 0 and 0 < len(program) // 8 < 4096  # the kernel's BPF_MAXINSNS


# Loads a program (bytes on stdin) into this process the way the launcher does, then runs CODE.
LOADER = """
import ctypes, sys
program = sys.stdin.buffer.read()
libc = ctypes.CDLL(None, use_errno=True)
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
buf = ctypes.create_string_buffer(program, len(program))
prog = Prog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.byref(prog), 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
"""


def _filtered(program: bytes, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", LOADER + code], input=program.decode("latin-1"),
                          capture_output=True, text=True, encoding="latin-1", timeout=60)


def test_no_fork_filter_allows_threads_and_refuses_processes() -> None:
    program = no_fork_program()
    assert program is not None
    code = """
import os, threading
box = []
t = threading.Thread(target=lambda: box.append(1)); t.start(); t.join()
try:
    os.fork()
    print("forked")
except OSError as exc:
    print("refused", exc.errno, box)
"""
    done = _filtered(program, code)
    assert done.stdout.strip() == "refused 1 [1]", done.stderr


@x86_64_only
def test_denylist_kills_a_process_that_uses_the_x32_abi() -> None:
    program = denylist_program()
    assert program is not None
    code = """
libc.syscall.restype = ctypes.c_long
print("before", flush=True)
libc.syscall(0x40000000 | 39)  # x32 getpid
print("survived")
"""
    done = _filtered(program, code)
    assert done.stdout.strip() == "before"
    assert done.returncode == -31  # SIGSYS


CALLS = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
seen = {}
for name, number in {"keyctl": 250, "bpf": 321, "perf_event_open": 298, "io_uring_setup": 425,
                     "userfaultfd": 323, "ptrace": 101, "unshare": 272, "clone3": 435}.items():
    result = libc.syscall(number, 0, 0, 0, 0, 0)
    seen[name] = (result, ctypes.get_errno())
seen["getpid"] = (libc.syscall(39), 0)
VALUE = {k: list(v) for k, v in seen.items()}
"""


@x86_64_only
@pytest.mark.bwrap
def test_denied_syscalls_fail_with_eperm_inside_the_sandbox(tmp_path: Path) -> None:
    outcome = BwrapRunner(workspace_parent=tmp_path).run(job_for(CALLS))
    assert outcome.ok and outcome.result is not None, outcome.error_message
    seen = outcome.result["value"]
    for name in ("keyctl", "bpf", "perf_event_open", "io_uring_setup", "userfaultfd", "ptrace", "unshare"):
        assert seen[name] == [-1, 1], name  # EPERM
    assert seen["clone3"] == [-1, 38]  # ENOSYS, so libc falls back to clone
    assert seen["getpid"][0] > 0
