"""Planting a bug by editing a copy of the solution: exact-text edits derived from the difference.

Each changed block becomes one edit whose `old` text occurs exactly once in the file (context lines
are added around it until it does), so the package format's rule holds by construction; the edits are
then checked against the solution and on top of the earlier bugs.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

from app.engine.edits import Edit, apply_edits
from app.engine.errors import PackageError


@dataclass(frozen=True)
class DerivedEdit:
    """One edit with where it is (1-based line in the solution file) and whether it applies cleanly."""

    edit: Edit
    line: int
    problem: str | None = None


def _unique_block(lines: list[str], start: int, end: int, new: list[str]) -> tuple[int, int]:
    """Widen lines[start:end] with context until its text occurs once in the file (and is not empty)."""
    text = "".join(lines)
    while True:
        old = "".join(lines[start:end])
        if old and text.count(old) == 1:
            return start, end
        if start == 0 and end == len(lines):
            return start, end
        start, end = max(0, start - 1), min(len(lines), end + 1)


def derive_edits(solution: dict[str, str], edited: dict[str, str]) -> list[Edit]:
    """The edits that turn `solution` into `edited` (files compared by name; unknown names ignored)."""
    edits: list[Edit] = []
    for name in solution:
        before, after = solution[name], edited.get(name, solution[name]).replace("\r\n", "\n")
        if before == after:
            continue
        old_lines, new_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
        matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            start, end = _unique_block(old_lines, i1, i2, new_lines[j1:j2])
            new = "".join(old_lines[start:i1] + new_lines[j1:j2] + old_lines[i2:end])
            edits.append(Edit(name, "".join(old_lines[start:end]), new))
    return edits


def check_edits(solution: dict[str, str], starter_so_far: dict[str, str], edits: list[Edit]) -> list[DerivedEdit]:
    """Each edit with its line and a problem when it does not apply exactly once (alone or on the starter)."""
    out = []
    for edit in edits:
        line = solution[edit.file][: solution[edit.file].find(edit.old)].count("\n") + 1
        problem = None
        for files, where in ((solution, "the solution"), (starter_so_far, "the solution with the earlier bugs")):
            count = files[edit.file].count(edit.old)
            if count != 1:
                problem = (f"the changed text occurs {count} times in {where} ({edit.file}); it must occur "
                           "exactly once" + (" — it overlaps an earlier bug's edit" if count == 0 else ""))
                break
        out.append(DerivedEdit(edit=edit, line=line, problem=problem))
    return out


def applies(solution: dict[str, str], edits: list[Edit]) -> bool:
    """True when the edits reproduce exactly what the admin edited."""
    try:
        apply_edits(solution, edits, where="bug")
    except PackageError:
        return False
    return True


# Templates for common kinds: (file, line pattern, replacement) proposing the edit at the right line.
Template = tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]]
TEMPLATES: dict[str, Template] = {
    "mask-future-leak": ("model.py", re.compile(r"torch\.tril\((?P<args>.*)\)(?P<rest>\s*)$"),
                         lambda m: f"torch.tril({m['args']}, diagonal=1){m['rest']}"),
    "mask-missing": ("model.py", re.compile(r"^(?P<indent>\s*)(?P<line>att = att\.masked_fill\(.*)$"),
                     lambda m: f"{m['indent']}# {m['line']}"),
    "softmax-wrong-dim": ("model.py", re.compile(r"(?P<head>att = F\.softmax\(att, dim=)-1(?P<tail>\))"),
                          lambda m: f"{m['head']}-2{m['tail']}"),
    "attn-scale-wrong": ("model.py", re.compile(r"math\.sqrt\(k\.size\(-1\)\)"), lambda m: "math.sqrt(C)"),
    "pos-not-added": ("model.py", re.compile(r"tok_emb \+ pos_emb"), lambda m: "tok_emb"),
    "label-no-shift": ("data.py", re.compile(r"data\[i \+ 1 : i \+ 1 \+ block_size\]"),
                       lambda m: "data[i : i + block_size]"),
    "mlp-no-nonlinearity": ("model.py", re.compile(r"self\.gelu\((?P<inner>self\.c_fc\(x\))\)"),
                            lambda m: m["inner"]),
}


def propose(kind: str, solution: dict[str, str]) -> tuple[dict[str, str], str] | None:
    """The solution with the kind's template applied at its first matching line, and where; None if none fits."""
    template = TEMPLATES.get(kind)
    if template is None or template[0] not in solution:
        return None
    name, pattern, replace = template
    lines = solution[name].splitlines(keepends=True)
    for number, line in enumerate(lines, start=1):
        body = line.rstrip("\n")
        if pattern.search(body):
            lines[number - 1] = pattern.sub(replace, body, count=1) + line[len(body):]
            return {**solution, name: "".join(lines)}, f"{name} line {number}"
    return None
