"""Dedicated sandbox uids: one per concurrent run, so RLIMIT_NPROC and clean-up never mix runs."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.sandbox.host import sandbox_uid_base, slot_state_dir
from app.sandbox.procfs import process_statuses, real_uid

SLOT_COUNT = 256


class NoFreeSlotError(RuntimeError):
    """Every sandbox uid is in use."""


@dataclass(frozen=True)
class Slot:
    """A locked sandbox uid and an empty staging directory the uid can reach."""

    uid: int
    stage_dir: Path


@contextlib.contextmanager
def sandbox_uid_slot() -> Iterator[Slot]:
    """Hold an exclusive lock on a free uid (uid base + n) for the duration of one run.

    The lock is an flock on a file, so it frees itself if the worker process dies.
    """
    state = slot_state_dir()
    state.mkdir(mode=0o711, parents=True, exist_ok=True)
    os.chmod(state, 0o711)  # traversable (for staging), not listable
    for slot in range(SLOT_COUNT):
        fd = os.open(state / f"slot-{slot}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        uid = sandbox_uid_base() + slot
        stage_dir = state / f"stage-{slot}"
        try:
            kill_uid_processes(uid)  # a previous holder may have died mid-run
            shutil.rmtree(stage_dir, ignore_errors=True)
            stage_dir.mkdir(mode=0o755)
            yield Slot(uid=uid, stage_dir=stage_dir)
        finally:
            kill_uid_processes(uid)
            shutil.rmtree(stage_dir, ignore_errors=True)
            os.close(fd)
        return
    raise NoFreeSlotError("no free sandbox slot")


def uid_processes(uid: int) -> list[int]:
    """Live (non-zombie) sandboxed pids whose real uid is uid."""
    return [
        pid
        for pid, fields in process_statuses()
        if real_uid(fields) == uid
        and not fields.get("State", "").strip().startswith("Z")
        # Only processes inside a nested pid namespace: a host process that happens to
        # use the same uid (e.g. a systemd DynamicUser) is never touched.
        and len(fields.get("NSpid", "").split()) >= 2
    ]


def kill_uid_processes(uid: int, *, timeout: float = 3.0) -> int:
    """SIGKILL every process of a dedicated sandbox uid until none is left; returns how many were seen."""
    deadline = time.monotonic() + timeout
    seen: set[int] = set()
    while True:
        pids = uid_processes(uid)
        if not pids:
            return len(seen)
        seen.update(pids)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            return len(seen)
        time.sleep(0.01)
