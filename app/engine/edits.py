"""Planting bugs: apply exact-text edits or unified diffs to the solution's files."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.engine.errors import PackageError

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Edit:
    """Replace `old` (which must occur exactly once) with `new` in `file`."""

    file: str
    old: str
    new: str

    def to_dict(self) -> dict[str, str]:
        return {"file": self.file, "old": self.old, "new": self.new}


def apply_edits(files: dict[str, str], edits: list[Edit], *, where: str) -> dict[str, str]:
    """Return a copy of `files` with each edit applied in order; `where` prefixes error messages."""
    out = dict(files)
    for n, edit in enumerate(edits):
        if edit.file not in out:
            raise PackageError(f"{where}.edits[{n}].file: {edit.file!r} is not one of the scenario's files")
        count = out[edit.file].count(edit.old)
        if count != 1:
            found = "does not occur" if count == 0 else f"occurs {count} times"
            raise PackageError(
                f"{where}.edits[{n}].old: the text {found} in {edit.file} (it must occur exactly once)"
            )
        out[edit.file] = out[edit.file].replace(edit.old, edit.new, 1)
    return out


def edits_from_diff(diff: str, solution: dict[str, str], *, where: str) -> list[Edit]:
    """Turn a unified diff against the solution into exact-text edits, one per hunk."""
    edits: list[Edit] = []
    current: str | None = None
    old_lines: list[str] = []
    new_lines: list[str] = []
    in_hunk = False

    def flush() -> None:
        if in_hunk and current is not None and (old_lines or new_lines):
            edits.append(Edit(current, "".join(old_lines), "".join(new_lines)))

    for line in diff.splitlines(keepends=True):
        if line.startswith("--- "):
            flush()
            in_hunk = False
            old_lines, new_lines = [], []
        elif line.startswith("+++ "):
            name = line[4:].strip().split("\t")[0]
            current = name[2:] if name.startswith(("a/", "b/")) else name
            if current not in solution:
                raise PackageError(f"{where}.diff: {current!r} is not one of the scenario's files")
        elif HUNK_HEADER.match(line):
            flush()
            in_hunk, old_lines, new_lines = True, [], []
        elif in_hunk and line.startswith(" "):
            old_lines.append(line[1:])
            new_lines.append(line[1:])
        elif in_hunk and line.startswith("-"):
            old_lines.append(line[1:])
        elif in_hunk and line.startswith("+"):
            new_lines.append(line[1:])
        elif in_hunk and line.startswith("\\"):
            continue  # "\ No newline at end of file"
        elif in_hunk and line.strip() == "":
            old_lines.append("\n")
            new_lines.append("\n")
    flush()
    if not edits:
        raise PackageError(f"{where}.diff: no hunks found (expected a unified diff against solution/)")
    return edits
