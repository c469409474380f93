"""A small seccomp denylist for the sandbox, as raw BPF for `bwrap --seccomp FD` (x86_64 only).

No libseccomp: the program is short enough to assemble by hand. It kills any non-x86_64 syscall
ABI, refuses x32 syscalls, answers clone3 with ENOSYS (libc falls back to clone, whose flags
the kernel and --disable-userns already police), and refuses kernel-facing calls a harness
never needs: ptrace, mounts, namespaces, keyrings, bpf, perf, io_uring, module loading, ...
"""

from __future__ import annotations

import errno
import platform
import struct

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_SYSCALL_BIT = 0x40000000
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_KILL_PROCESS = 0x80000000
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000

# x86_64 syscall numbers.
DENIED_SYSCALLS: dict[str, int] = {
    "ptrace": 101, "syslog": 103, "personality": 135, "vhangup": 153, "pivot_root": 155,
    "adjtimex": 159, "chroot": 161, "acct": 163, "settimeofday": 164, "mount": 165, "umount2": 166,
    "swapon": 167, "swapoff": 168, "reboot": 169, "sethostname": 170, "setdomainname": 171,
    "iopl": 172, "ioperm": 173, "init_module": 175, "delete_module": 176, "quotactl": 179,
    "lookup_dcookie": 212, "clock_settime": 227, "kexec_load": 246, "add_key": 248,
    "request_key": 249, "keyctl": 250, "unshare": 272, "perf_event_open": 298, "fanotify_init": 300,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "clock_adjtime": 305, "setns": 308,
    "process_vm_readv": 310, "process_vm_writev": 311, "finit_module": 313, "kexec_file_load": 320,
    "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "pidfd_getfd": 438, "mount_setattr": 442,
}  # fmt: skip
_CLONE3 = 435


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def denylist_program() -> bytes | None:
    """The BPF program bytes, or None on architectures we have no syscall table for."""
    if platform.machine() != "x86_64":
        return None
    deny = _RET_ERRNO | errno.EPERM
    denied = sorted(DENIED_SYSCALLS.values())
    insns = [
        _insn(_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _insn(_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64),
        _insn(_RET_K, 0, 0, _RET_KILL_PROCESS),
        _insn(_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        _insn(_JGE_K, 0, 1, _X32_SYSCALL_BIT),
        _insn(_RET_K, 0, 0, deny),
        _insn(_JEQ_K, 0, 1, _CLONE3),
        _insn(_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS),
    ]
    # Each check jumps over the remaining checks to the shared "deny" return when it matches.
    for index, number in enumerate(denied):
        remaining = len(denied) - index - 1
        insns.append(_insn(_JEQ_K, remaining + 1, 0, number))
    insns.append(_insn(_RET_K, 0, 0, _RET_ALLOW))
    insns.append(_insn(_RET_K, 0, 0, deny))
    return b"".join(insns)


_JSET_K = 0x45
_CLONE_THREAD = 0x00010000
_FORK, _VFORK, _CLONE = 57, 58, 56


def no_fork_program() -> bytes | None:
    """BPF that refuses new processes (fork, vfork, clone without CLONE_THREAD) but allows threads.

    With one process, RLIMIT_AS bounds the memory of the whole harness; without it a submission
    could multiply its memory by forking up to RLIMIT_NPROC times. Installed by the in-sandbox
    launcher on the harness only (the launcher itself must still start the harness).
    """
    if platform.machine() != "x86_64":
        return None
    deny = _RET_ERRNO | errno.EPERM
    insns = [
        _insn(_LD_W_ABS, 0, 0, 4),  # 0: arch
        _insn(_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64),  # 1
        _insn(_RET_K, 0, 0, _RET_KILL_PROCESS),  # 2
        _insn(_LD_W_ABS, 0, 0, 0),  # 3: nr
        _insn(_JEQ_K, 5, 0, _FORK),  # 4 -> 10
        _insn(_JEQ_K, 4, 0, _VFORK),  # 5 -> 10
        _insn(_JEQ_K, 0, 2, _CLONE),  # 6 -> 7 or 9
        _insn(_LD_W_ABS, 0, 0, 16),  # 7: low half of args[0], the clone flags
        _insn(_JSET_K, 0, 1, _CLONE_THREAD),  # 8 -> 9 (a thread) or 10
        _insn(_RET_K, 0, 0, _RET_ALLOW),  # 9
        _insn(_RET_K, 0, 0, deny),  # 10
    ]
    return b"".join(insns)
