"""CodeMirror change sets (ChangeSet.toJSON()) applied to text on the server, to check a recording.

The JSON is a list of sections: a number keeps that many characters, a list [deleted, *inserted lines]
deletes `deleted` characters and inserts the lines joined by newlines. CodeMirror counts UTF-16 code
units and Python code points; a text with characters outside the Basic Multilingual Plane (emoji) may
therefore not fit, and the recording then keeps that file's whole text instead (never a wrong text).
"""

from __future__ import annotations

from typing import Any


class ChangesMisfit(ValueError):
    """The changes are malformed or were made on a text of another length."""


def apply_changes(text: str, changes: Any) -> str:
    """The text after a ChangeSet's JSON; ChangesMisfit when it does not fit."""
    if not isinstance(changes, list):
        raise ChangesMisfit("a change set is a list")
    out: list[str] = []
    pos = 0
    for part in changes:
        if isinstance(part, int) and not isinstance(part, bool) and part >= 0:
            out.append(text[pos:pos + part])
            pos += part
        elif (isinstance(part, list) and part and isinstance(part[0], int) and not isinstance(part[0], bool)
              and part[0] >= 0 and all(isinstance(line, str) for line in part[1:])):
            pos += part[0]
            if len(part) > 1:
                out.append("\n".join(part[1:]))
        else:
            raise ChangesMisfit("a section is a length or [deleted, *inserted lines]")
        if pos > len(text):
            raise ChangesMisfit("the changes reach past the end of the text")
    if pos != len(text):
        raise ChangesMisfit(f"the changes are for a text of {pos} characters, this one has {len(text)}")
    return "".join(out)
