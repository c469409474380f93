"""Normalised token fingerprints: k-grams of Python tokens with names and strings normalised.

Names become "V" (attribute names after a dot are kept: `.transpose` versus `.view` matters), strings
"S"; numbers, keywords and operators stay; comments and blank lines vanish. Renaming variables or
reformatting therefore does not change the fingerprints, while changing a call or a number does.
"""

from __future__ import annotations

import hashlib
import io
import keyword
import re
import tokenize
from collections import OrderedDict
from collections.abc import Iterable

K = 5  # tokens per k-gram: long enough to be specific, short enough to see a one-line fix
_FALLBACK = re.compile(r"\w+|[^\w\s]")
_CACHE: OrderedDict[tuple[str, str], frozenset[int]] = OrderedDict()
_CACHE_SIZE = 4096


def normalised_tokens(source: str) -> list[str]:
    """The token stream used for fingerprints (a regex split when the code does not tokenize)."""
    out: list[str] = []
    previous = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            if tok.type == tokenize.NAME:
                text = tok.string if keyword.iskeyword(tok.string) or previous == "." else "V"
            elif tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_START", -1):
                text = "S"
            elif tok.type == tokenize.NEWLINE:
                text = ";"
            elif tok.type == tokenize.INDENT:
                text = "{"
            elif tok.type == tokenize.DEDENT:
                text = "}"
            else:
                text = tok.string
            out.append(text)
            previous = tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [t if not t[0].isalpha() or keyword.iskeyword(t) else "V" for t in _FALLBACK.findall(source)]
    return out


def _hash(parts: Iterable[str]) -> int:
    return int.from_bytes(hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest(), "big")


def file_fingerprints(name: str, source: str) -> frozenset[int]:
    """The k-gram hashes of one file (tagged with its name, so files do not match across each other)."""
    key = (name, hashlib.sha256(source.encode()).hexdigest())
    cached = _CACHE.get(key)
    if cached is not None:
        _CACHE.move_to_end(key)
        return cached
    tokens = normalised_tokens(source)
    grams = frozenset(_hash([name, *tokens[i:i + K]]) for i in range(max(0, len(tokens) - K + 1)))
    _CACHE[key] = grams
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return grams


def fingerprints(files: dict[str, str], names: Iterable[str]) -> frozenset[int]:
    """The fingerprints of the named files together."""
    found: set[int] = set()
    for name in names:
        if name in files:
            found |= file_fingerprints(name, str(files[name]))
    return frozenset(found)


def jaccard(a: frozenset[int] | set[int], b: frozenset[int] | set[int]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0
