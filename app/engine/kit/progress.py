"""Report where the run is (display only) on the pipe named by DOJO_PROGRESS_FD, when there is one."""

import json
import os

_fd = None


def _channel():
    global _fd
    if _fd is None:
        value = os.environ.get("DOJO_PROGRESS_FD", "")
        _fd = int(value) if value.isdigit() else -1
    return _fd


def report(stage, name=None, k=None, n=None):
    """One line of JSON; a closed or missing channel is silently ignored (progress is optional)."""
    fd = _channel()
    if fd < 0:
        return
    message = {"stage": stage}
    if name is not None:
        message["name"] = name
    if k is not None:
        message["k"], message["n"] = k, n
    try:
        os.write(fd, (json.dumps(message) + "\n").encode())
    except OSError:
        globals()["_fd"] = -1
