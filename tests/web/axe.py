"""Run axe-core (vendored from npm, tests/vendor/axe-core) in a Playwright page.

The source is evaluated through Playwright (the DevTools protocol), which the page's
Content-Security-Policy does not govern, so pages are audited under their real CSP. The other ways
in would not do: a <script> tag (add_script_tag) is an inline script the CSP blocks, and a context
with bypass_csp=True would also hide the CSP violations the browser tests look for.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

AXE_JS = Path(__file__).resolve().parents[1] / "vendor" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


@cache
def _axe_source() -> str:
    return AXE_JS.read_text(encoding="utf-8")


def violations(page: Any, selector: str | None = None) -> list[dict[str, Any]]:
    """Every axe violation on the page (or inside the element `selector` names), as axe reports them."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_axe_source())
    result = page.evaluate(
        "(selector) => axe.run(selector || document, {resultTypes: ['violations']})", selector,
    )
    return list(result["violations"])


def serious_violations(page: Any, selector: str | None = None) -> list[dict[str, Any]]:
    """The violations of impact serious or critical."""
    return [violation for violation in violations(page, selector) if violation["impact"] in SERIOUS]


def describe(found: list[dict[str, Any]]) -> str:
    """One line per violation and offending element, for assertion messages."""
    return "\n".join(
        f"{violation['id']} ({violation['impact']}): {violation['help']} at {node['target']}"
        for violation in found for node in violation["nodes"]
    )
