"""Hostile text a candidate (or a careless author) can put wherever text is stored.

Every payload that could run calls `__xss("<where>")`: the browser test defines that function before
any page script, so a payload that ever runs is recorded. A page that escapes its text shows each of
these as plain characters.
"""

from __future__ import annotations

BIDI = "\u202e\u2066\u2067\u2069\u200f"  # right-to-left override, isolates, mark


def payloads(where: str) -> list[str]:
    """Every attack shape, each tagged with where it was planted."""
    call = f"__xss('{where}')"
    return [
        f"<script>{call}</script>",
        f'"><script>{call}</script>',
        f"'><img src=x onerror=\"{call}\">",
        f"<svg/onload={call}>",
        f'<svg><script href="data:,{call}"/></svg>',
        f'<a href="javascript:{call}">link</a>',
        f"[click me](javascript:{call})",
        f"![image](x\" onerror=\"{call})",
        f'<iframe srcdoc="<script>parent.{call}</script>"></iframe>',
        f"</textarea><script>{call}</script>",
        f"</title><script>{call}</script>",
        f"<math><mtext><table><mglyph><style><img src=x onerror={call}>",
        f"{{{{ ''.__class__ }}}} {{% raw %}}<b onmouseover={call}>x</b>",
        f"<details open ontoggle={call}>",
        f"{BIDI}gnp.exe{BIDI}<img src=x onerror={call}>",
        "=HYPERLINK(\"http://evil.example\",\"x\")",
        "+cmd|' /C calc'!A0",
        "-1+1",
        "@SUM(1+1)",
        ("A" * 5000) + f"<img src=x onerror={call}>",  # a very long line
    ]


def text(where: str) -> str:
    """All payloads in one block of text (notes, briefs, file contents)."""
    return "\n".join(payloads(where))


def email(where: str) -> str:
    """An address that the sign-up rules accept but that is markup (no spaces: the rules forbid them)."""
    return f"<svg/onload=__xss('{where}')>@evil.example"


def formula_email() -> str:
    """An address that a spreadsheet would run as a formula if an export let it through."""
    return '=HYPERLINK("http://evil.example")@evil.example'
