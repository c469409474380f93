"""Typed access to scenario.toml values with errors that name the field (and the line when known)."""

from __future__ import annotations

import re
from typing import Any

from app.engine.errors import PackageError

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


def bug_line(raw: str, index: int) -> int | None:
    """Line number (1-based) of the index-th [[bugs]] header in the TOML text."""
    seen = -1
    for number, line in enumerate(raw.splitlines(), start=1):
        if line.strip() == "[[bugs]]":
            seen += 1
            if seen == index:
                return number
    return None


def key_line(raw: str, key: str) -> int | None:
    """Line number (1-based) of a top-level `key = ...` (before the first table header)."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number, line in enumerate(raw.splitlines(), start=1):
        if line.lstrip().startswith("["):
            return None
        if pattern.match(line):
            return number
    return None


class TomlFields:
    """Reads and checks one TOML table; `prefix` is its path (e.g. 'bugs[2]') for messages."""

    def __init__(self, table: dict[str, Any], raw: str, *, prefix: str = "", line: int | None = None):
        self.table, self.raw, self.prefix, self.line = table, raw, prefix, line

    def _fail(self, key: str, problem: str) -> PackageError:
        line = self.line or (None if self.prefix else key_line(self.raw, key))
        where = f"scenario.toml:{line}" if line else "scenario.toml"
        path = f"{self.prefix}.{key}" if self.prefix else key
        return PackageError(f"{where}: {path}: {problem}")

    def _get(self, key: str) -> Any:
        if key not in self.table:
            raise self._fail(key, "is required")
        return self.table[key]

    def string(self, key: str) -> str:
        value = self._get(key)
        if not isinstance(value, str) or not value.strip():
            raise self._fail(key, "must be a non-empty string")
        return value

    def slug(self, key: str) -> str:
        value = self.string(key)
        if not SLUG.match(value):
            raise self._fail(key, f"{value!r} must be lower-case letters, digits and hyphens")
        return value

    def choice(self, key: str, allowed: tuple[str, ...]) -> str:
        value = self.string(key)
        if value not in allowed:
            raise self._fail(key, f"must be one of {', '.join(allowed)} (got {value!r})")
        return value

    def integer(self, key: str, low: int, high: int) -> int:
        value = self._get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise self._fail(key, f"must be an integer from {low} to {high}")
        return value

    def str_list(self, key: str, *, allowed: tuple[str, ...], owner: str) -> list[str]:
        """A list of file names, each one of `allowed` (the files the interface `owner` has)."""
        value = self._get(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise self._fail(key, "must be a non-empty list of file names")
        for v in value:
            if v not in allowed:
                raise self._fail(key, f"{v!r} is not a {owner} file (allowed: {', '.join(allowed)})")
        if len(set(value)) != len(value) or "model.py" not in value:
            raise self._fail(key, "must list each file once and include model.py")
        return value

    def table_list(self, key: str, *, required: bool = False) -> list[dict[str, Any]]:
        value = self.table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self._fail(key, "must be an array of tables ([[...]])")
        if required and not value:
            raise self._fail(key, "at least one entry is required")
        return value

    def training(self, spec: dict[str, tuple[type, float, float]]) -> dict[str, float]:
        table = self.table.get("training", {})
        if not isinstance(table, dict):
            raise self._fail("training", "must be a table")
        out: dict[str, float] = {}
        for key, value in table.items():
            if key not in spec:
                raise self._fail(f"training.{key}", f"unknown setting (known: {', '.join(spec)})")
            kind, low, high = spec[key]
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            ok = ok and (kind is float or isinstance(value, int)) and low <= value <= high
            if not ok:
                raise self._fail(f"training.{key}", f"must be a {kind.__name__} from {low} to {high}")
            out[key] = kind(value)
        if "n_embd" in out or "n_head" in out:
            n_embd, n_head = out.get("n_embd", 48), out.get("n_head", 4)
            if n_embd % n_head:
                raise self._fail("training.n_embd", "must be divisible by training.n_head")
        return out

    def questions(self) -> list[dict[str, str]]:
        out = []
        for n, q in enumerate(self.table_list("questions")):
            f = TomlFields(q, self.raw, prefix=f"questions[{n}]")
            out.append({"id": f.slug("id"), "text": f.string("text")})
        return out

    def hints(self, key: str) -> tuple[str, str, str]:
        value = self._get(key)
        if not isinstance(value, list) or len(value) != 3 or not all(isinstance(v, str) and v for v in value):
            raise self._fail(key, "must be exactly three non-empty strings (vague to specific)")
        return (value[0], value[1], value[2])

    def explanation(self, key: str) -> dict[str, str]:
        value = self._get(key)
        if not isinstance(value, dict):
            raise self._fail(key, "must be a table with expected, detect and fix")
        f = TomlFields(value, self.raw, prefix=f"{self.prefix}.{key}", line=self.line)
        return {k: f.string(k) for k in ("expected", "detect", "fix")}

    def edit_list(self, key: str) -> list[dict[str, str]]:
        value = self._get(key)
        if not isinstance(value, list) or not value:
            raise self._fail(key, "must be a non-empty array of {file, old, new} tables (or give diff)")
        for n, e in enumerate(value):
            if not isinstance(e, dict) or set(e) != {"file", "old", "new"}:
                raise self._fail(f"{key}[{n}]", "must have exactly the keys file, old and new")
            if not all(isinstance(e[k], str) for k in e) or not e["old"] or e["old"] == e["new"]:
                raise self._fail(f"{key}[{n}]", "old must be non-empty text and new must differ from it")
        return value
