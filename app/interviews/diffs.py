"""Line diffs of a candidate's files, shaped for the review page (each line typed, never raw HTML)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

MAX_DIFF_LINES = 600  # per file; a rewrite of a whole file still shows its start and says what is left out


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add" | "del" | "ctx" | "hunk"
    text: str


@dataclass(frozen=True)
class FileDiff:
    name: str
    lines: list[DiffLine] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    omitted: int = 0  # lines beyond MAX_DIFF_LINES

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def file_diff(name: str, before: str, after: str) -> FileDiff:
    """The unified diff of one file (three lines of context)."""
    raw = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=3))[2:]
    lines, added, removed = [], 0, 0
    for text in raw:
        if text.startswith("@@"):
            kind = "hunk"
        elif text.startswith("+"):
            kind, added = "add", added + 1
        elif text.startswith("-"):
            kind, removed = "del", removed + 1
        else:
            kind = "ctx"
        lines.append(DiffLine(kind=kind, text=text))
    return FileDiff(name=name, lines=lines[:MAX_DIFF_LINES], added=added, removed=removed,
                    omitted=max(0, len(lines) - MAX_DIFF_LINES))


def files_diff(before: dict[str, str], after: dict[str, str]) -> list[FileDiff]:
    """A diff per file present on either side, in name order (unchanged files included, marked unchanged)."""
    names = sorted(set(before) | set(after))
    return [file_diff(name, str(before.get(name, "")), str(after.get(name, ""))) for name in names]
