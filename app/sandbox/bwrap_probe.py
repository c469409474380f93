"""Find out once per process whether bubblewrap can create a sandbox on this host."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

BWRAP_ENV = "DOJO_BWRAP"
DEFAULT_BWRAP = "/usr/bin/bwrap"
# When the service runs as root, sandboxed processes run as uid base + slot instead.
SANDBOX_UID_BASE = 64000
UID_BASE_ENV = "DOJO_SANDBOX_UID_BASE"


def sandbox_uid_base() -> int:
    """First sandbox uid (DOJO_SANDBOX_UID_BASE overrides 64000); nothing else may use the range."""
    return int(os.environ.get(UID_BASE_ENV) or SANDBOX_UID_BASE)


def bwrap_path() -> str:
    """Path of the bubblewrap binary (DOJO_BWRAP overrides the default)."""
    return os.environ.get(BWRAP_ENV) or shutil.which("bwrap") or DEFAULT_BWRAP


def _drop_to_sandbox_uid() -> None:
    os.setgroups([])
    os.setgid(sandbox_uid_base())
    os.setuid(sandbox_uid_base())


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """None when a minimal bubblewrap sandbox starts here, else a short reason."""
    path = bwrap_path()
    if not os.access(path, os.X_OK):
        return f"{path} not found"
    argv = [
        path, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
        "/usr/bin/true",
    ]  # fmt: skip
    try:
        completed = subprocess.run(
            argv,
            capture_output=True,
            timeout=10,
            preexec_fn=_drop_to_sandbox_uid if os.getuid() == 0 else None,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap failed to start: {exc.__class__.__name__}"
    if completed.returncode != 0:
        first_line = completed.stderr.decode(errors="replace").strip().splitlines()[:1]
        return f"bubblewrap test sandbox failed: {first_line[0] if first_line else completed.returncode}"
    return None
