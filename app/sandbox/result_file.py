"""Read result.json back from an untrusted directory without following links."""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass
from typing import Any

RESULT_NAME = "result.json"


@dataclass(frozen=True)
class ResultRead:
    """Parsed result object, or the reason there is none (problem is a short, path-free sentence)."""

    result: dict[str, Any] | None
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


def read_result_file(out_dir: str | os.PathLike[str], *, max_bytes: int) -> ResultRead:
    """Open out_dir/result.json with O_NOFOLLOW, require a regular file, cap the size, parse it."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        dir_fd = os.open(out_dir, flags | os.O_DIRECTORY)
    except OSError:
        return ResultRead(None, "The output directory is missing or was replaced.", missing=True)
    try:
        try:
            # O_NONBLOCK keeps a planted FIFO from blocking the open.
            fd = os.open(RESULT_NAME, flags | os.O_NONBLOCK, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                return ResultRead(None, "No result was written.", missing=True)
            if exc.errno == errno.ELOOP:
                return ResultRead(None, "The result file is a symbolic link; it was not read.")
            return ResultRead(None, "The result file could not be opened.")
    finally:
        os.close(dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return ResultRead(None, "The result file is not a regular file.")
        if info.st_size > max_bytes:
            return ResultRead(None, "The result file is larger than allowed.", too_large=True)
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        return ResultRead(None, "The result file is larger than allowed.", too_large=True)
    return read_result_bytes(data)
