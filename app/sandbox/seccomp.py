"""The sandbox's seccomp filters, compiled by the system's libseccomp (through pyseccomp) to BPF.

libseccomp knows every architecture's syscall numbers and ABI checks, so x86_64 and arm64 hosts get
the same two filters:
- the denylist, given to `bwrap --seccomp FD` for the whole sandbox: kernel-facing calls a harness
  never needs (ptrace, mounts, namespaces, keyrings, bpf, perf, io_uring, module loading, ...) fail
  with EPERM; clone3 answers ENOSYS (libc falls back to clone, whose flags the kernel and
  --disable-userns already police); a syscall of another ABI (x32, 32-bit compat) kills the process;
- no-fork, installed by the in-sandbox launcher on the harness only: fork, vfork and clone without
  CLONE_THREAD fail with EPERM, threads are allowed. With one process, RLIMIT_AS bounds the memory of
  the whole harness; without it a submission could multiply its memory by forking.

This file is also bound into the sandbox next to launcher.py and imported there (stdlib plus
pyseccomp from the read-only Python environment). Each function returns None when libseccomp is
not usable here; the caller logs that the filter is off.
"""

from __future__ import annotations

import errno
import tempfile
from functools import lru_cache
from typing import Any

DENIED_SYSCALLS: tuple[str, ...] = (
    "ptrace", "syslog", "personality", "vhangup", "pivot_root", "adjtimex", "chroot", "acct",
    "settimeofday", "mount", "umount2", "swapon", "swapoff", "reboot", "sethostname", "setdomainname",
    "iopl", "ioperm", "init_module", "delete_module", "quotactl", "lookup_dcookie", "clock_settime",
    "kexec_load", "add_key", "request_key", "keyctl", "unshare", "perf_event_open", "fanotify_init",
    "name_to_handle_at", "open_by_handle_at", "clock_adjtime", "setns", "process_vm_readv",
    "process_vm_writev", "finit_module", "kexec_file_load", "bpf", "userfaultfd", "io_uring_setup",
    "io_uring_enter", "io_uring_register", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
    "fspick", "pidfd_getfd", "mount_setattr",
)  # fmt: skip
NEW_PROCESS_SYSCALLS: tuple[str, ...] = ("fork", "vfork")
CLONE_THREAD = 0x00010000
# The system's libseccomp, loaded by file name: pyseccomp's own lookup (ctypes.util.find_library)
# starts ldconfig, which the sandbox should not have to run.
LIBSECCOMP_NAMES = ("libseccomp.so.2", "libseccomp.so")


def _pyseccomp() -> Any:
    """pyseccomp bound to the system's libseccomp, or None when either is missing."""
    import ctypes
    import ctypes.util

    original = ctypes.util.find_library

    def find_library(name: str) -> str | None:
        names = {"seccomp": LIBSECCOMP_NAMES, "c": ("libc.so.6",)}.get(name, ())
        for candidate in names:
            try:
                ctypes.CDLL(candidate)
            except OSError:
                continue
            return candidate
        return None if name == "seccomp" else original(name)

    ctypes.util.find_library = find_library
    try:
        return _import_pyseccomp()
    except (ImportError, OSError, AttributeError, TypeError):
        return None
    finally:
        ctypes.util.find_library = original


def _import_pyseccomp() -> Any:
    try:
        import pyseccomp
    except ImportError:
        pass
    else:
        return pyseccomp
    # The in-sandbox launcher runs with `python -S` (no site-packages on sys.path): load pyseccomp
    # from the environment's site-packages by file, without changing sys.path for anyone else.
    import importlib.util
    import os
    import site
    import sys

    # Without site, sys.prefix is the base install; a virtualenv is found by its pyvenv.cfg.
    venv = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))
    prefixes = [venv] if os.path.exists(os.path.join(venv, "pyvenv.cfg")) else []
    for directory in site.getsitepackages([*prefixes, sys.prefix]):
        spec = importlib.util.spec_from_file_location("pyseccomp", f"{directory}/pyseccomp.py")
        if spec is not None and spec.loader is not None:
            try:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            except FileNotFoundError:
                continue
            sys.modules["pyseccomp"] = module
            return module
    raise ImportError("pyseccomp is not installed in this Python environment")


def _add(sc: Any, flt: Any, action: int, name: str, *args: Any) -> bool:
    """Add one rule; False when this architecture has no such syscall (arm64 has no fork)."""
    if sc.resolve_syscall(sc.Arch.NATIVE, name) < 0:
        return False
    flt.add_rule(action, name, *args)
    return True


def _export(flt: Any) -> bytes:
    with tempfile.TemporaryFile() as out:
        flt.export_bpf(out)
        out.seek(0)
        return out.read()


def _new_filter(sc: Any) -> Any:
    flt = sc.SyscallFilter(defaction=sc.ALLOW)
    # Another ABI (x32 on x86_64, 32-bit compat) would bypass the rules: kill the process instead.
    flt.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
    # The launcher (or bwrap) sets no_new_privs itself before loading the program.
    return flt


@lru_cache(maxsize=1)
def denylist_program() -> bytes | None:
    """BPF for `bwrap --seccomp FD`, or None when libseccomp is not available."""
    sc = _pyseccomp()
    if sc is None:
        return None
    flt = _new_filter(sc)
    for name in DENIED_SYSCALLS:
        _add(sc, flt, sc.ERRNO(errno.EPERM), name)
    _add(sc, flt, sc.ERRNO(errno.ENOSYS), "clone3")
    return _export(flt)


@lru_cache(maxsize=1)
def no_fork_program() -> bytes | None:
    """BPF that refuses new processes but allows threads, or None when libseccomp is not available."""
    sc = _pyseccomp()
    if sc is None:
        return None
    flt = _new_filter(sc)
    deny = sc.ERRNO(errno.EPERM)
    for name in NEW_PROCESS_SYSCALLS:
        _add(sc, flt, deny, name)
    # clone without CLONE_THREAD in its flags (argument 0) is a new process; with it, a thread.
    _add(sc, flt, deny, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    # clone3 passes its flags in memory that a filter cannot read: ENOSYS makes libc use clone.
    _add(sc, flt, sc.ERRNO(errno.ENOSYS), "clone3")
    return _export(flt)

