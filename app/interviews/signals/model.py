"""The shape of a signal: what it is, whether it is raised, and the evidence behind it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any


@dataclass(frozen=True)
class Evidence:
    text: str
    at: timedelta | None = None  # since the interview started
    file: str | None = None
    line: int | None = None
    code: str | None = None

    def to_api(self) -> dict[str, Any]:
        return {"text": self.text, "at_seconds": int(self.at.total_seconds()) if self.at is not None else None,
                "file": self.file, "line": self.line, "code": self.code}


@dataclass(frozen=True)
class Signal:
    kind: str
    title: str
    raised: bool
    summary: str
    note: str = ""
    evidence: list[Evidence] = field(default_factory=list)

    def to_api(self) -> dict[str, Any]:
        return {"kind": self.kind, "title": self.title, "raised": self.raised, "summary": self.summary,
                "note": self.note, "evidence": [e.to_api() for e in self.evidence]}


def clock(offset: timedelta | None) -> str:
    """+mm:ss since the start (or +h:mm:ss)."""
    if offset is None:
        return "before the start"
    seconds = int(offset.total_seconds())
    sign, seconds = ("-", -seconds) if seconds < 0 else ("+", seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{sign}{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{sign}{rest // 60}:{rest % 60:02d}"
