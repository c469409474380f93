"""Root-only helper that starts bubblewrap as the sandbox uid. Stdlib only; runs as its own process.

Why: bubblewrap must run unprivileged (so sandboxed processes are never real root outside), but
some paths it binds (the Python install under /root) are not reachable by that uid. In a private
mount namespace we bind each source onto a staging mount point the sandbox uid can reach, then
set rlimits, drop to the sandbox uid and exec bubblewrap. Nothing changes in the host's mounts.
Input: argv[1] is a JSON object {uid, gid, rlimits: [[res, soft, hard]], binds: [[src, dst]], nice, argv}.
"""

import ctypes
import json
import os
import resource
import sys

CLONE_NEWNS = 0x00020000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MS_BIND = 4096


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        sys.stderr.write(f"dojo-sandbox: {what} failed: {os.strerror(err)}\n")
        os._exit(125)


def main() -> None:
    config = json.loads(sys.argv[1])
    libc = ctypes.CDLL(None, use_errno=True)
    if config["binds"]:
        _check(libc.unshare(CLONE_NEWNS), "unshare")
        _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "making mounts private")
        for src, dst in config["binds"]:
            _check(libc.mount(src.encode(), dst.encode(), None, MS_BIND | MS_REC, None), "staging bind")
    for which, soft, hard in config["rlimits"]:
        _, current_hard = resource.getrlimit(which)
        if current_hard != resource.RLIM_INFINITY:  # limits can only go down without privilege
            hard = min(hard, current_hard)
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))
    # Lower priority than the web process (SANDBOX_NICE), never higher than ours; set before dropping to the
    # sandbox uid, which then cannot raise it again.
    nice = config.get("nice", 0)
    os.setpriority(os.PRIO_PROCESS, 0, max(nice, os.getpriority(os.PRIO_PROCESS, 0)))
    if config["uid"] is not None:
        os.setgroups([])
        os.setresgid(config["gid"], config["gid"], config["gid"])
        os.setresuid(config["uid"], config["uid"], config["uid"])
    os.execv(config["argv"][0], config["argv"])


if __name__ == "__main__":
    main()
