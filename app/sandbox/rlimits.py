"""Resource limits applied to the process that runs candidate code (inherited by its children)."""

from __future__ import annotations

import os
import resource

from app.sandbox.job import Limits
from app.sandbox.process_limits import apply_rlimits, lower_priority
from app.sandbox.procfs import process_statuses, real_uid

__all__ = ["apply_rlimits", "lower_priority", "rlimit_table", "tasks_of_uid", "with_nproc_headroom"]

# CPU: the kernel sends SIGXCPU at the soft limit and SIGKILL at the hard one.
CPU_HARD_GRACE_SECONDS = 2


def rlimit_table(limits: Limits, *, extra_cpu_seconds: int = 0) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) triples for a run; computed before fork so the child only calls setrlimit.

    extra_cpu_seconds: CPU allowed before the job starts (a warm sandbox's preload); the in-sandbox
    standby lowers the limit to the job's own when the job arrives.
    """
    cpu = limits.cpu_seconds + extra_cpu_seconds
    return [
        (resource.RLIMIT_CPU, cpu, cpu + CPU_HARD_GRACE_SECONDS),
        (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_DATA, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_NPROC, limits.max_processes, limits.max_processes),
        (resource.RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files),
        (resource.RLIMIT_FSIZE, limits.max_file_bytes, limits.max_file_bytes),
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_MEMLOCK, 0, 0),
        (resource.RLIMIT_MSGQUEUE, 0, 0),
    ]


def with_nproc_headroom(table: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """RLIMIT_NPROC counts every task of the real uid: when that uid is shared, allow its current tasks too."""
    if os.getuid() == 0:
        return table  # root ignores RLIMIT_NPROC anyway
    extra = tasks_of_uid(os.getuid())
    return [
        (which, soft + extra, hard + extra) if which == resource.RLIMIT_NPROC else (which, soft, hard)
        for which, soft, hard in table
    ]


def tasks_of_uid(uid: int) -> int:
    """Number of threads owned by uid (what RLIMIT_NPROC counts)."""
    return sum(
        int(fields.get("Threads", "1").strip() or 1) for _pid, fields in process_statuses() if real_uid(fields) == uid
    )
