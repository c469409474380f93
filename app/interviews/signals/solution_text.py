"""Text only the solution has: what an honest fix cannot produce.

A starter is the solution with bugs planted, so every honest fix brings the code close to the solution;
closeness says nothing. What a candidate fixing the bugs by hand does not write is the solution's own
wording where it differs from the starter: its comments, the names only it uses, whole lines of it
arriving at once in a paste. So the signal is raised by
- a paste (the editor reports each large paste; the server keeps fingerprints of its pieces, never the
  text) that carries one of the solution's own comments, or two or more of its lines or names, and
- a submission that holds two or more of the solution's own comments (typing a fix reproduces code, not
  the author's remarks).
A single restored line is what a minimal fix looks like, and is never enough.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from dataclasses import dataclass
from functools import lru_cache

from app.engine.package import ScenarioPackage
from app.workspace.events import normalise_piece, piece_hash

MIN_LINE_CHARS = 20  # a restored line shorter than this is too generic to tell anything
MIN_NAME_CHARS = 6
PASTE_TELLS = 2  # lines or names from the solution in one paste (any one solution-only comment suffices)
SUBMISSION_COMMENTS = 2
_WORD = re.compile(r"[A-Za-z]{3,}")


@dataclass(frozen=True)
class Tell:
    """One piece of text only the solution has."""

    kind: str  # "comment" | "line" | "name"
    file: str
    text: str

    @property
    def hash(self) -> str:
        return piece_hash(self.text)


def _comments_and_names(source: str) -> tuple[set[str], set[str]]:
    """The comments (normalised, without '#') and the code's names of one file."""
    comments, names = set(), set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                comments.add(normalise_piece(tok.string.lstrip("#")))
            elif tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
                names.add(tok.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return comments, names


def _telling_comment(text: str) -> bool:
    """Remarks in words; shape annotations such as "(B, nh, T, T)" are everyone's."""
    return len(_WORD.findall(text)) >= 2


@lru_cache(maxsize=64)
def _tells(content_hash: str, files: tuple[tuple[str, str, str], ...]) -> tuple[Tell, ...]:
    out: list[Tell] = []
    for name, solution, starter in files:
        sol_comments, sol_names = _comments_and_names(solution)
        st_comments, st_names = _comments_and_names(starter)
        st_lines = {normalise_piece(line) for line in starter.splitlines()}
        out += [Tell("comment", name, c) for c in sorted(sol_comments - st_comments) if _telling_comment(c)]
        out += [Tell("name", name, n) for n in sorted(sol_names - st_names) if len(n) >= MIN_NAME_CHARS]
        for line in solution.splitlines():
            piece = normalise_piece(line)
            if len(piece) >= MIN_LINE_CHARS and piece not in st_lines and not piece.startswith("#"):
                out.append(Tell("line", name, piece))
    return tuple(dict.fromkeys(out))


def solution_tells(package: ScenarioPackage) -> tuple[Tell, ...]:
    """Every comment, name (six characters or more) and line (twenty or more) the solution has and the
    starter does not, per editable file."""
    files = tuple((n, package.solution_files.get(n, ""), package.starter_files.get(n, "")) for n in package.files)
    return _tells(package.content_hash, files)


def tells_in_paste(tells: tuple[Tell, ...], file: str, hashes: list[str]) -> list[Tell]:
    """The tells of `file` whose fingerprint a paste into it carried."""
    carried = set(hashes)
    return [t for t in tells if t.file == file and t.hash in carried]


def paste_is_telling(found: list[Tell]) -> bool:
    return any(t.kind == "comment" for t in found) or len(found) >= PASTE_TELLS


def comments_in_files(tells: tuple[Tell, ...], files: dict[str, str]) -> list[Tell]:
    """The solution-only comments a submission holds."""
    out = []
    for tell in tells:
        if tell.kind == "comment" and tell.file in files:
            comments, _ = _comments_and_names(str(files[tell.file]))
            if tell.text in comments:
                out.append(tell)
    return out
