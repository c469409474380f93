"""The bubblewrap command line: what the sandbox sees, and nothing more."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from app.sandbox import protocol
from app.sandbox.job import Limits

# Paths inside the sandbox.
CANDIDATE_DIR = "/dojo/candidate"
HARNESS_DIR = "/dojo/harness"
INPUT_DIR = "/dojo/input"
INPUT_FILE = f"{INPUT_DIR}/input.json"
OUT_DIR = "/dojo/out"
WORK_DIR = "/dojo/work"
LAUNCHER_DIR = "/dojo/launcher"
_SHM_BYTES = 16 * 1024 * 1024
# Small system files Python, libc and torch read; never the whole of /etc (no shadow, no secrets).
_ETC_FILES = ("ld.so.cache", "localtime", "nsswitch.conf", "host.conf", "mime.types")


@dataclass(frozen=True)
class Mount:
    """A read-only bind of a host path (file or directory) at a sandbox path."""

    host: str
    sandbox: str


def python_mounts(python: str) -> list[Mount]:
    """The Python environment: venv prefix, base prefix and the interpreter's real install."""
    real_exe = os.path.realpath(python)
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    prefixes.add(str(Path(real_exe).parent.parent))
    roots = sorted({os.path.realpath(p) for p in prefixes} | prefixes)
    # Only top-most prefixes: a prefix inside another is already covered.
    kept = [p for p in roots if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in roots)]
    return [Mount(p, p) for p in kept if not _is_system_path(p)]


def _is_system_path(path: str) -> bool:
    return path == "/usr" or path.startswith("/usr/")


def build_bwrap_argv(
    *,
    bwrap: str,
    python: str,
    mounts: list[Mount],
    limits: Limits,
    sandbox_uid: int,
    status_fd: int,
    go_fd: int,
    ack_fd: int,
    ready_fd: int,
    preload: tuple[str, ...] = (),
    allow_processes: bool = False,
    progress_fd: int | None = None,
    agent_fds: tuple[int, int] | None = None,
) -> list[str]:
    """Full argv: namespaces, read-only system + Python, tmpfs scratch, clean env, then the launcher."""
    scratch = str(limits.scratch_bytes)
    argv = [
        bwrap,
        "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--disable-userns",
        "--uid", str(sandbox_uid), "--gid", str(sandbox_uid), "--hostname", "sandbox",
        "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        # No procfs: /proc/self/mountinfo would show every bind's host path (the Python install, the app,
        # the run's directory). Only /proc/cpuinfo is there, which torch reads to pick its CPU kernels.
        "--dir", "/proc", "--ro-bind-try", "/proc/cpuinfo", "/proc/cpuinfo", "--dev", "/dev",
        "--perms", "1777", "--size", scratch, "--tmpfs", "/tmp",
        "--perms", "1777", "--size", str(_SHM_BYTES), "--tmpfs", "/dev/shm",
        "--perms", "0755", "--size", scratch, "--tmpfs", WORK_DIR,
        "--perms", "0755", "--size", str(limits.max_result_bytes * 2), "--tmpfs", OUT_DIR,
    ]  # fmt: skip
    for name in _ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for mount in mounts:
        argv += ["--ro-bind", mount.host, mount.sandbox]
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        protocol.CANDIDATE_DIR_VAR: CANDIDATE_DIR,
        protocol.HARNESS_DIR_VAR: HARNESS_DIR,
        protocol.INPUT_VAR: INPUT_FILE,
        protocol.OUT_VAR: OUT_DIR,
    }
    if progress_fd is not None:
        env[protocol.PROGRESS_FD_VAR] = str(progress_fd)
    if agent_fds is not None:
        env[protocol.AGENT_FDS_VAR] = f"{agent_fds[0]},{agent_fds[1]}"
    argv.append("--clearenv")
    for key, value in env.items():
        argv += ["--setenv", key, value]
    # Freeze the sandbox's root tmpfs so only the size-limited mounts above are writable.
    argv += ["--remount-ro", "/", "--chdir", WORK_DIR, "--"]
    # -S: the launcher needs only the standard library, and skipping site saves a startup.
    argv += [python, "-I", "-S", "-B", f"{LAUNCHER_DIR}/launcher.py", str(status_fd), str(limits.max_result_bytes)]
    argv += ["fork" if allow_processes else "nofork", str(go_fd), str(ack_fd), str(ready_fd), ",".join(preload)]
    return argv
