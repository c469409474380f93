# Mount, chroot, create namespaces: the usual container escapes.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
report = []
if libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0:
    report.append("BREACH: mounted tmpfs")
if libc.mount(b"/", b"/tmp", None, 4096, None) == 0:
    report.append("BREACH: bind mounted /")
if libc.unshare(0x10000000) == 0:  # CLONE_NEWUSER
    report.append("BREACH: new user namespace")
if libc.unshare(0x00020000) == 0:  # CLONE_NEWNS
    report.append("BREACH: new mount namespace")
try:
    os.chroot("/tmp")
    report.append("BREACH: chroot")
except OSError as e:
    report.append(f"chroot: {e.__class__.__name__}")
for path in ["/proc/sys/kernel/hostname", "/proc/sysrq-trigger", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]:
    try:
        with open(path, "w") as f:
            f.write("x")
        report.append(f"BREACH: wrote {path}")
    except OSError as e:
        report.append(f"{path}: {e.__class__.__name__}")
raise RuntimeError("; ".join(report))
