"""Stored XSS: the hostile corpus (tests/web/hostile/corpus.py) planted in names, emails, scenario text,
files, notes, error messages and reviews, opened in a real Chromium on every page that shows it.

Nothing may run: no payload call, no dialog, no CSP violation; no injected handler attribute,
script element or javascript: link may exist in the DOM. The CSP itself is proven to block an
inline script slipped into a real page, and the CSV export is proven safe against formula injection.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

import pytest
from services import require_chromium

from web.hostile.corpus import formula_email
from web.hostile.pages import PAGES, Page
from web.hostile.seed import seed
from web.live_server import CHROMIUM_ARGS, LiveServer, live_server

pytestmark = pytest.mark.browser

# Runs before any page script: records payload calls, dialogs and CSP violations.
WATCH = """
window.__hits = [];
window.__xss = (where) => window.__hits.push('ran:' + where);
for (const name of ['alert', 'confirm', 'prompt']) window[name] = (m) => window.__hits.push('dialog:' + m);
document.addEventListener('securitypolicyviolation',
  (e) => window.__hits.push('csp:' + e.violatedDirective + ' ' + (e.sourceFile || '') + ':' + e.lineNumber));
"""
# Injected markup that escaped escaping, whether or not it managed to run.
AUDIT = """
() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.name.startsWith('on') && attr.value.includes('__xss')) found.push(el.tagName + '[' + attr.name + ']');
      if (['href', 'src', 'action', 'formaction', 'xlink:href'].includes(attr.name)
          && attr.value.trim().toLowerCase().startsWith('javascript:')) found.push(el.tagName + '[' + attr.name + ']');
      if (attr.name === 'srcdoc') found.push(el.tagName + '[srcdoc]');
    }
    if (el.tagName === 'SCRIPT' && el.textContent.includes('__xss')) found.push('SCRIPT with payload');
  }
  return found;
}
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, Any]]]:
    require_chromium()
    with live_server(tmp_path_factory.mktemp("hostile") / "data") as server:
        ids = seed(server.env["DATABASE_URL"], interviewer_email=server.users["interviewer"])
        yield server, ids


@pytest.fixture(scope="module")
def browser(hostile: tuple[LiveServer, dict[str, Any]]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def contexts(browser: Any, hostile: tuple[LiveServer, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """One signed-in browser context per role, shared by the module's pages."""
    server, ids = hostile
    made = {}
    for role in ("anonymous", "candidate", "interviewer", "admin"):
        context = browser.new_context()
        context.add_init_script(WATCH)
        if role != "anonymous":
            email, password = ((ids["candidate_email"], ids["candidate_password"]) if role == "candidate"
                               else (server.users[role], server.password))
            # The form itself would refuse the hostile address (type=email), so post it as a client would.
            page = context.new_page()
            page.goto(f"{server.url}/sign-in")
            token = page.locator("input[name=csrf_token]").first.input_value()
            page.close()
            response = context.request.post(f"{server.url}/sign-in", max_redirects=0, form={
                "email": email, "password": password, "csrf_token": token})
            assert response.status == 303, (role, response.status, response.text()[:300])
        made[role] = context
    yield made
    for context in made.values():
        context.close()


def _visit(context: Any, url: str) -> tuple[Any, int]:
    """The role's one page, navigated to `url`: each navigation is a new document, on which WATCH runs again
    before any page script (a new page per visit costs a renderer process, about 0.4 CPU-seconds each)."""
    page = context.pages[0] if context.pages else context.new_page()
    response = page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)  # deferred scripts and htmx swaps that follow the load
    return page, response.status if response else 0


@pytest.mark.parametrize("target", PAGES, ids=lambda p: f"{p.role}:{p.path}")
def test_hostile_text_runs_nothing_on_the_page(
    target: Page, contexts: dict[str, Any], hostile: tuple[LiveServer, dict[str, Any]]
) -> None:
    server, ids = hostile
    page, status = _visit(contexts[target.role], server.url + target.path.format(**ids))
    assert status < 400, f"{target.path} answered {status}"
    page.mouse.move(5, 5)
    page.mouse.move(400, 300)  # hover handlers, had any been injected
    assert page.evaluate("window.__hits") == [], "a payload ran, a dialog opened or the CSP had to block"
    assert page.evaluate(AUDIT) == [], "injected markup is live in the DOM"
    if target.shows is not None:
        assert f"__xss('{target.shows}')" in page.content().replace("&#39;", "'").replace("&#x27;", "'"), \
            f"the planted {target.shows!r} text is not on the page, so the page proves nothing"


def test_the_csp_blocks_an_inline_script_that_reaches_a_page(
    contexts: dict[str, Any], hostile: tuple[LiveServer, dict[str, Any]]
) -> None:
    """Defence in depth: a script injected into a real page (and its real CSP header) is refused."""
    server, _ = hostile
    context = contexts["anonymous"]

    def inject(route: Any) -> None:
        response = route.fetch()
        planted = "<script>__xss('inline')</script><img src=x onerror=\"__xss('attr')\">"
        body = response.text().replace("</main>", planted + "</main>")
        route.fulfill(response=response, body=body)

    context.route(f"{server.url}/sign-in", inject)
    try:
        page, status = _visit(context, f"{server.url}/sign-in")
        hits = page.evaluate("window.__hits")
        audit = page.evaluate(AUDIT)
        page.close()
    finally:
        context.unroute(f"{server.url}/sign-in")
    assert status == 200
    assert not [h for h in hits if h.startswith("ran:")], hits
    assert any(h.startswith("csp:script-src") for h in hits), hits
    assert "IMG[onerror]" in audit and "SCRIPT with payload" in audit  # the DOM audit sees injections


def test_csv_export_cells_never_start_a_formula(
    contexts: dict[str, Any], hostile: tuple[LiveServer, dict[str, Any]]
) -> None:
    server, _ = hostile
    response = contexts["interviewer"].request.get(f"{server.url}/api/interviews.csv")
    assert response.status == 200
    rows = list(csv.reader(io.StringIO(response.text())))
    cells = [cell for row in rows[1:] for cell in row]
    assert any("evil.example" in cell for cell in cells), "the hostile interviews are not in the export"
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], "a cell starts a formula"
    assert "'" + formula_email().lower() in cells  # kept, made inert with a leading apostrophe
