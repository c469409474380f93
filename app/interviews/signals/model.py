"""The shape of a signal: what it is, whether it is raised, and the evidence behind it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta


@dataclass(frozen=True)
class Evidence:
    text: str
    at: timedelta | None = None  # since the interview started
    file: str | None = None
    line: int | None = None
    code: str | None = None


@dataclass(frozen=True)
class Signal:
    kind: str
    title: str
    raised: bool
    summary: str
    note: str = ""
    evidence: list[Evidence] = field(default_factory=list)
    fact: bool = False  # shown as what happened, never raised (how fast the candidate worked)


def clock(offset: timedelta | None) -> str:
    """+mm:ss since the start (or +h:mm:ss)."""
    if offset is None:
        return "before the start"
    seconds = int(offset.total_seconds())
    sign, seconds = ("-", -seconds) if seconds < 0 else ("+", seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{sign}{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{sign}{rest // 60}:{rest % 60:02d}"
