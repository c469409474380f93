"""The seccomp denylist: well-formed, and effective inside the sandbox."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.seccomp import DENIED_SYSCALLS, denylist_program

from .helpers import job_for

x86_64_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="the denylist is x86_64 only")


@x86_64_only
def test_denylist_program_is_whole_instructions_and_small() -> None:
    program = denylist_program()
    assert program is not None and len(program) % 8 == 0
    assert len(program) // 8 == len(DENIED_SYSCALLS) + 10  # header, one check per call, two returns
    assert len(program) // 8 < 4096  # the kernel's BPF_MAXINSNS


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
