"""Read result.json back from an untrusted directory without following links."""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass

RESULT_NAME = "result.json"


@dataclass(frozen=True)
class ResultRead:
    """Parsed result object, or the reason there is none (problem is a short, path-free sentence).

    The object is untrusted JSON (candidate code runs in the process that writes it): its values are
    `object` until a reader has checked them (app.engine.harness_run makes the measurements)."""

    result: dict[str, object] | None
    problem: str | None = None
    too_large: bool = False
    missing: bool = False


def read_result_bytes(data: bytes) -> ResultRead:
    """Parse result bytes as JSON and check the top level is an object."""
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return ResultRead(None, "The result file is not valid JSON.")
    if not isinstance(parsed, dict):
        return ResultRead(None, "The result file does not hold a JSON object.")
    return ResultRead(parsed)


def read_capped_file(dir_path: str, name: str, *, max_bytes: int) -> tuple[bytes | None, str]:
    """Read dir_path/name without following links: (data, "ok") or (None, reason code).

    Reason codes: missing, link, not_regular, too_large, unreadable. Stdlib only: the in-sandbox
    launcher imports this module too.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        dir_fd = os.open(dir_path, flags | os.O_DIRECTORY)
    except OSError:
        return None, "missing"
    try:
        try:
            # O_NONBLOCK keeps a planted FIFO from blocking the open.
            fd = os.open(name, flags | os.O_NONBLOCK, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                return None, "missing"
            if exc.errno == errno.ELOOP:
                return None, "link"
            return None, "unreadable"
    finally:
        os.close(dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "not_regular"
        if info.st_size > max_bytes:
            return None, "too_large"
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError:
        return None, "unreadable"
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        return None, "too_large"
    return data, "ok"


_PROBLEMS = {
    "missing": "No result was written.",
    "link": "The result file is a symbolic link; it was not read.",
    "not_regular": "The result file is not a regular file.",
    "too_large": "The result file is larger than allowed.",
    "unreadable": "The result file could not be read.",
}


def result_from_read(data: bytes | None, reason: str) -> ResultRead:
    """ResultRead for the outcome of read_capped_file."""
    if data is not None:
        return read_result_bytes(data)
    problem = _PROBLEMS.get(reason, _PROBLEMS["unreadable"])
    return ResultRead(None, problem, too_large=reason == "too_large", missing=reason == "missing")


def read_result_file(out_dir: str | os.PathLike[str], *, max_bytes: int) -> ResultRead:
    """Open out_dir/result.json with O_NOFOLLOW, require a regular file, cap the size, parse it."""
    data, reason = read_capped_file(os.fspath(out_dir), RESULT_NAME, max_bytes=max_bytes)
    return result_from_read(data, reason)
