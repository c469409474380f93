"""The progress channel: lines of JSON the harness writes to a pipe while it runs.

Progress is shown to the candidate and never trusted: candidate code runs in the same process as
the harness and could write anything here. So every line is parsed defensively, reduced to a small
fixed shape, and the total read is capped; a flood or garbage only stops the reports.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_LINE_BYTES = 512
MAX_TOTAL_BYTES = 64 * 1024
_TEXT_FIELDS = ("stage", "name")
_NUMBER_FIELDS = ("k", "n")

@dataclass(frozen=True)
class Progress:
    """One progress report: a stage, and within it what runs now (`name`, step `k` of `n`) when known."""

    stage: str
    name: str | None = None
    k: int | None = None
    n: int | None = None

    def to_json(self) -> dict[str, str | int]:
        """The fields that are set, as the attempt row stores them and the Results panel reads them."""
        fields = {"stage": self.stage, "name": self.name, "k": self.k, "n": self.n}
        return {key: value for key, value in fields.items() if value is not None}


ProgressCallback = Callable[[Progress], None]


def sanitise(raw: Any) -> Progress | None:
    """{stage, name?, k?, n?} with short strings and small non-negative integers, or None."""
    if not isinstance(raw, dict) or not isinstance(raw.get("stage"), str) or not raw["stage"]:
        return None
    text = {key: value[:60] for key in _TEXT_FIELDS if isinstance(value := raw.get(key), str) and value}
    numbers = {key: value for key in _NUMBER_FIELDS
               if isinstance(value := raw.get(key), int) and not isinstance(value, bool) and 0 <= value <= 1_000_000}
    return Progress(stage=text["stage"], name=text.get("name"), k=numbers.get("k"), n=numbers.get("n"))


class ProgressReader:
    """Feed it raw chunks from the pipe; it calls `report` with each valid line."""

    def __init__(self, report: ProgressCallback) -> None:
        self._report = report
        self._pending = b""
        self._total = 0

    def feed(self, chunk: bytes) -> None:
        self._total += len(chunk)
        if self._total > MAX_TOTAL_BYTES:
            self._pending = b""
            return
        self._pending += chunk
        *lines, self._pending = self._pending.split(b"\n")
        if len(self._pending) > MAX_LINE_BYTES:
            self._pending = b""
        for line in lines:
            if len(line) > MAX_LINE_BYTES:
                continue
            try:
                progress = sanitise(json.loads(line))
            except ValueError:
                continue
            if progress is not None:
                self._report(progress)


def progress_streams(on_progress: ProgressCallback | None, read_fd: int) -> dict[int, Callable[[bytes], None]]:
    """supervise()'s stream_fds for a job: its progress pipe, fed to the job's on_progress when set."""
    if on_progress is None:
        return {read_fd: lambda _chunk: None}  # still drained, so the harness never blocks on a full pipe
    return {read_fd: ProgressReader(on_progress).feed}
