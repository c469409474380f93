"""The never-leaks-the-fix guard: what no tip may contain, per scenario version.

Forbidden: any line of a planted bug's old or new text, any line of the solution that differs from
the starter, an explanation's fix sentence or a code expression from it, and any hidden test id.
Every tip passes through `LeakGuard.leaks` before it is stored, whoever wrote it (rules or a model).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.engine.interfaces import INTERFACES

if TYPE_CHECKING:
    from app.engine.package import ScenarioPackage

MIN_LINE_CHARS = 6  # shorter lines ("else:", "x = y") are too common to mean anything
MIN_FRAGMENT_CHARS = 8
_SPACE = re.compile(r"\s+")
_OPERATOR = re.compile(r"^[-+*/<>!=:@%]+$")
_CODE_TOKEN = re.compile(r"[=\[\]_]|\w\.\w|\w\(|^-?\d|\)")


def squash(text: str) -> str:
    """Case-folded with runs of whitespace as one space: how texts are compared."""
    return _SPACE.sub(" ", text).strip().casefold()


def _meaningful(line: str) -> bool:
    return len(line) >= MIN_LINE_CHARS and any(ch.isalpha() for ch in line)


def code_fragments(sentence: str) -> list[str]:
    """Code expressions inside a prose sentence ("Use math.sqrt(k.size(-1))." -> "math.sqrt(k.size(-1))")."""
    tokens = sentence.split()
    code = [bool(_CODE_TOKEN.search(t) or _OPERATOR.match(t)) for t in tokens]
    for i in range(len(tokens)):  # operands of an operator are code too ("logits / temperature")
        if not code[i] and any(0 <= j < len(tokens) and _OPERATOR.match(tokens[j]) for j in (i - 1, i + 1)):
            code[i] = True
    runs, current = [], []
    for token, is_code in zip(tokens, code, strict=True):
        if is_code:
            current.append(token)
        elif current:
            runs.append(" ".join(current))
            current = []
    if current:
        runs.append(" ".join(current))
    fragments = [run.strip(" .,;(") for run in runs]
    return [f for f in fragments if len(f) >= MIN_FRAGMENT_CHARS and re.search(r"[(\[=]|\s[-+*/]\s", f)]


@dataclass(frozen=True)
class LeakGuard:
    """Squashed forbidden texts; `leaks(text)` names the ones a text contains."""

    lines: frozenset[str]
    fixes: frozenset[str]
    test_ids: frozenset[str]

    def leaks(self, text: str) -> list[str]:
        body = squash(text)
        found = [f"fix: {fix}" for fix in self.fixes if fix in body]
        found += [f"line: {line}" for line in self.lines if line in body]
        found += [f"test id: {test}" for test in self.test_ids if test in body]
        return found

    def tip_leaks(self, *parts: str) -> list[str]:
        """Leaks in any field of a tip."""
        return [leak for part in parts for leak in self.leaks(part)]


# Every interface's hidden test ids: a tip never names one, whichever scenario it is about.
HIDDEN_TEST_IDS = frozenset(test_id.casefold() for i in INTERFACES.values() for test_id in i.hidden_test_ids())


def guard_for(package: ScenarioPackage) -> LeakGuard:
    """The guard of one scenario package."""
    lines: set[str] = set()
    fixes: set[str] = set()
    for bug in package.bugs:
        for edit in bug.edits:
            lines.update(squash(line) for line in (edit.old + "\n" + edit.new).splitlines())
        fix = str(bug.explanation.get("fix", ""))
        if fix.strip():
            fixes.add(squash(fix).rstrip("."))
            fixes.update(squash(fragment) for fragment in code_fragments(fix))
    solution, starter = package.solution_files, package.starter_files
    for name, text in solution.items():
        diff = difflib.unified_diff(starter.get(name, "").splitlines(), text.splitlines(), n=0, lineterm="")
        lines.update(squash(row[1:]) for row in diff if row[:1] in "+-" and row[:3] not in ("+++", "---"))
    return LeakGuard(lines=frozenset(line for line in lines if _meaningful(line)),
                     fixes=frozenset(f for f in fixes if len(f) >= MIN_FRAGMENT_CHARS),
                     test_ids=HIDDEN_TEST_IDS)


EMPTY_GUARD = LeakGuard(lines=frozenset(), fixes=frozenset(), test_ids=HIDDEN_TEST_IDS)
