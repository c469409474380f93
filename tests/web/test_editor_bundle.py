"""The committed editor bundle (static/vendor/codemirror) in a real Chromium, under the app's CSP.

A small page (tests/web/editor_page) is served by a local HTTP server with the app's
Content-Security-Policy header; it loads dojo-editor.min.js and records what the editor's hooks do.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from services import require_chromium

from app.web.setup import CONTENT_SECURITY_POLICY
from web.axe import describe, serious_violations
from web.live_server import launch_chromium

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PAGE_DIR = Path(__file__).resolve().parent / "editor_page"
MODEL_PY = "import torch\n\n\ndef forward(x):\n    return x\n"
LABEL = "Editor: model.py"
# Records CSP violations from the first moment of the page, before any of its own scripts run.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation",
  (event) => window.__cspViolations.push(event.violatedDirective + " " + event.blockedURI));
"""


class _Handler(SimpleHTTPRequestHandler):
    """The test page, the committed static files, and /echo, which returns a posted form as JSON."""

    def translate_path(self, path: str) -> str:
        path = urllib.parse.urlsplit(path).path
        if path == "/favicon.ico":
            path = "/static/favicon.svg"
        if path.startswith("/static/"):
            return str(ROOT / path.lstrip("/"))
        return str(PAGE_DIR / (path.lstrip("/") or "index.html"))

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        super().end_headers()

    def do_POST(self) -> None:  # noqa: N802 (the http.server naming)
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        fields = urllib.parse.parse_qs(body, keep_blank_values=True)
        payload = "\n".join(f"{name}={value!r}" for name, values in fields.items() for value in values).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the http.server signature)
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(PAGE_DIR)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launch_chromium(require_chromium()) as chromium:
        yield chromium


@pytest.fixture
def page(browser: Any, site: str, console_errors: list[str]) -> Iterator[Any]:
    """The test page with both editors up; console errors, page errors and CSP violations fail the test."""
    context = browser.new_context()
    tab = context.new_page()
    errors = console_errors
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.add_init_script(RECORD_VIOLATIONS)
    tab.goto(site)
    tab.wait_for_function("() => window.editorTest !== undefined")
    yield tab
    errors.extend(tab.evaluate("() => window.__cspViolations"))
    context.close()
    assert not errors, f"browser console errors or CSP violations: {errors}"


def _calls(page: Any) -> list[str]:
    return list(page.evaluate("() => window.editorTest.calls"))


def _model_value(page: Any) -> str:
    return str(page.evaluate("() => window.editorTest.model.getValue()"))


def _textarea_value(page: Any) -> str:
    return str(page.evaluate("() => document.getElementById('model').value"))


def _focus_end(page: Any, label: str = LABEL) -> None:
    """Click into the editor and put the cursor at the end of the text."""
    page.get_by_label(label).click()
    page.keyboard.press("Control+End")


def test_editor_has_its_accessible_name_and_shows_the_code(page: Any) -> None:
    editor = page.get_by_label(LABEL)
    assert editor.get_attribute("role") == "textbox"
    assert page.get_by_role("textbox", name=LABEL).count() == 1
    assert page.get_by_label(LABEL).count() == 1  # the textarea's aria-label moved to the editor
    # The code as shown; innerText turns the <br> of each empty line into one more newline.
    assert editor.inner_text() == "\n".join(line or "\n" for line in MODEL_PY.split("\n"))
    assert page.locator("#model").is_hidden()  # the textarea gave way to the editor
    assert page.get_by_role("textbox", name="Editor: data.py").inner_text().startswith("def get_batch(split):")


def test_editor_is_styled_under_the_csp(page: Any) -> None:
    """CodeMirror's styles apply although `style-src 'self'` forbids <style> elements."""
    styles = page.evaluate("""() => {
        const editor = document.querySelector('.cm-editor'), gutters = editor.querySelector('.cm-gutters');
        const content = editor.querySelector('.cm-content');
        return {display: getComputedStyle(editor).display, background: getComputedStyle(editor).backgroundColor,
                gutterRight: gutters.getBoundingClientRect().right, contentLeft: content.getBoundingClientRect().left,
                styleElements: document.querySelectorAll('style').length,
                adopted: document.adoptedStyleSheets.length};
    }""")
    assert styles["display"] == "flex"  # CodeMirror's base theme
    assert styles["background"] == "rgb(255, 255, 255)"  # the light theme
    assert styles["contentLeft"] >= styles["gutterRight"]  # line numbers beside the code, not above it
    assert styles["styleElements"] == 0
    assert styles["adopted"] >= 1


def test_violation_recorder_catches_an_inline_style(page: Any, console_errors: list[str]) -> None:
    """The CSP check of every test can fail: an inline <style> is reported (then forgiven here)."""
    page.evaluate("() => { const style = document.createElement('style'); style.textContent = 'p {}';"
                  " document.head.append(style); }")
    page.wait_for_function("() => window.__cspViolations.length > 0")
    assert page.evaluate("() => window.__cspViolations")[0].startswith("style-src")
    assert any("Content Security Policy" in error for error in console_errors)
    page.evaluate("() => { window.__cspViolations.length = 0; }")
    console_errors.clear()


def test_typing_changes_the_value_and_the_mirrored_textarea(page: Any) -> None:
    _focus_end(page)
    page.keyboard.type("y = forward(1")  # close brackets types the ")"
    expected = MODEL_PY + "y = forward(1)"
    assert _model_value(page) == expected
    assert _textarea_value(page) == expected
    assert "change" in _calls(page)
    assert "y = forward(1)" in page.get_by_label(LABEL).inner_text()


def test_typing_over_lines_and_filling_leave_the_csp_alone(page: Any) -> None:
    """Replacing a selection across lines would make Chrome add style attributes (CSP errors)."""
    page.get_by_label(LABEL).click()
    page.keyboard.press("Control+Home")
    for _ in range(3):
        page.keyboard.press("Shift+ArrowDown")
    page.keyboard.type("x")
    assert _model_value(page) == "xdef forward(x):\n    return x\n"
    page.keyboard.press("Control+z")
    assert _model_value(page) == MODEL_PY
    page.get_by_label(LABEL).fill("a = 1\nb = 2\n")
    assert _model_value(page) == _textarea_value(page) == "a = 1\nb = 2\n"


def test_the_form_posts_the_edited_text(page: Any) -> None:
    _focus_end(page)
    page.keyboard.type("z = 2")
    page.get_by_role("button", name="Save files").click()
    page.wait_for_url("**/echo")
    posted = (MODEL_PY + "z = 2").replace("\n", "\r\n")  # browsers post a textarea's lines with CRLF
    assert page.locator("body").inner_text() == f"model.py={posted!r}"


def test_run_submit_and_save_keys_call_the_hooks(page: Any) -> None:
    _focus_end(page)
    page.keyboard.press("Control+Enter")
    page.keyboard.press("Control+Shift+Enter")
    page.keyboard.press("Control+s")
    assert [call for call in _calls(page) if call in {"run", "submit", "save"}] == ["run", "submit", "save"]
    assert page.evaluate("() => window.editorTest.keydowns") == [True]  # the save dialog is suppressed
    assert _model_value(page) == MODEL_PY  # none of the keys typed anything


def test_undo_is_per_editor(page: Any) -> None:
    _focus_end(page, "Editor: data.py")
    page.keyboard.type("# data")
    _focus_end(page)
    page.keyboard.type("# model")
    page.keyboard.press("Control+z")
    assert _model_value(page) == MODEL_PY
    assert _textarea_value(page) == MODEL_PY
    assert page.evaluate("() => window.editorTest.data.getValue()").endswith("# data")


def test_tab_indents_and_escape_then_tab_leaves_the_editor(page: Any) -> None:
    _focus_end(page)
    page.keyboard.press("Tab")
    assert _model_value(page) == MODEL_PY + "    "
    assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == LABEL
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "after-model"
    assert _model_value(page) == MODEL_PY + "    "


def test_enter_keeps_python_indentation(page: Any) -> None:
    page.get_by_label(LABEL).click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    page.keyboard.type("class A:")
    page.keyboard.press("Enter")
    page.keyboard.type("pass")
    assert _model_value(page).startswith("import torch\nclass A:\n    pass\n")


def test_search_panel_opens_with_ctrl_f(page: Any) -> None:
    _focus_end(page)
    page.keyboard.press("Control+f")
    search = page.get_by_role("textbox", name="Find")
    expect(search).to_be_focused()
    page.keyboard.type("forward")  # the panel reads the query on keyup, as a person types it
    page.keyboard.press("Enter")
    assert page.evaluate("() => window.editorTest.model.view.state.sliceDoc("
                         "window.editorTest.model.view.state.selection.main.from,"
                         "window.editorTest.model.view.state.selection.main.to)") == "forward"
    assert serious_violations(page) == [], describe(serious_violations(page))


def test_paste_calls_the_paste_hook(page: Any) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.evaluate("() => navigator.clipboard.writeText('pasted = 1\\n')")
    _focus_end(page)
    page.keyboard.press("Control+v")
    assert "paste:pasted = 1\n" in _calls(page)
    assert _model_value(page) == MODEL_PY + "pasted = 1\n"


def test_set_theme_switches_at_run_time(page: Any) -> None:
    background = "() => getComputedStyle(document.querySelector('.cm-editor')).backgroundColor"
    page.evaluate("() => window.editorTest.model.setTheme('dark')")
    assert page.evaluate(background) == "rgb(13, 17, 23)"
    assert serious_violations(page) == [], describe(serious_violations(page))
    page.evaluate("() => window.editorTest.model.setTheme('light')")
    assert page.evaluate(background) == "rgb(255, 255, 255)"
    message = page.evaluate("() => { try { window.editorTest.model.setTheme('pink'); }"
                            " catch (error) { return error.message; } }")
    assert "unknown theme" in message


def test_read_only_and_go_to_line(page: Any) -> None:
    page.evaluate("() => window.editorTest.model.setReadOnly(true)")
    assert page.get_by_label(LABEL).get_attribute("aria-readonly") == "true"
    _focus_end(page)
    page.keyboard.type("nope")
    assert _model_value(page) == MODEL_PY
    page.evaluate("() => window.editorTest.model.goToLine(4)")
    selected = page.evaluate("() => { const s = window.editorTest.model.view.state;"
                             " return s.sliceDoc(s.selection.main.from, s.selection.main.to); }")
    assert selected == "def forward(x):"


def test_set_value_is_undoable_and_mirrored(page: Any) -> None:
    page.evaluate("() => window.editorTest.model.setValue('x = 1\\n')")
    assert _textarea_value(page) == "x = 1\n"
    page.get_by_label(LABEL).click()
    page.keyboard.press("Control+z")
    assert _model_value(page) == MODEL_PY


def test_markdown_is_not_in_the_workspace_bundle(page: Any) -> None:
    message = page.evaluate("""() => { try {
        DojoEditor.create({parent: document.body, language: 'markdown'}); } catch (e) { return e.message; } }""")
    assert "dojo-editor-markdown.min.js" in message


def test_no_serious_accessibility_violations(page: Any) -> None:
    _focus_end(page)  # the focused look too (outline, active line)
    found = serious_violations(page)
    assert found == [], describe(found)


def test_axe_reports_a_serious_violation_when_there_is_one(page: Any) -> None:
    """The audit above can fail: an input without any label is a critical violation."""
    page.evaluate("() => document.querySelector('main').append(document.createElement('input'))")
    assert "label" in {violation["id"] for violation in serious_violations(page)}


def test_markdown_bundle_edits_a_brief(page: Any, site: str) -> None:
    page.goto(f"{site}/markdown.html")
    page.wait_for_function("() => window.editorTest && window.editorTest.brief")
    editor = page.get_by_label("Editor: brief.md")
    heading = editor.locator(".cm-line").first.locator("span").first
    assert heading.evaluate("(node) => getComputedStyle(node).fontWeight") == "700"  # a Markdown heading
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("- one")
    page.keyboard.press("Enter")  # the Markdown keymap continues the list
    page.keyboard.type("two")
    assert page.evaluate("() => document.getElementById('brief').value").endswith("Fix **both** files.\n- one\n- two")
    found = serious_violations(page)
    assert found == [], describe(found)


def test_on_changes_records_change_sets_that_replay_the_text(page: Any) -> None:
    start = _model_value(page)
    _focus_end(page)
    page.keyboard.type("y = 2")
    page.keyboard.press("Backspace")
    recorded = page.evaluate("() => window.editorTest.recorded")
    assert [entry["userEvent"] for entry in recorded][-1] == "delete.backward"
    assert {entry["userEvent"] for entry in recorded[:-1]} == {"input.type"}
    assert recorded[-1]["cursorLine"] == MODEL_PY.count("\n") + 1
    # Replaying the change sets on the starting text gives the editor's text, in the page and without it.
    replayed = page.evaluate("""(start) => window.editorTest.recorded.reduce(
        (text, entry) => DojoEditor.applyChanges(text, entry.changes), start)""", start)
    assert replayed == _model_value(page) == MODEL_PY + "y = "
    follower = page.evaluate("""(start) => {
        const other = DojoEditor.create({parent: document.body, doc: start, readOnly: true, label: 'Follower'});
        const fits = window.editorTest.recorded.map((entry) => other.applyChanges(entry.changes));
        const misfit = other.applyChanges(window.editorTest.recorded[0].changes);
        return {fits, misfit, text: other.getValue()}; }""", start)
    assert all(follower["fits"]) and follower["misfit"] is False
    assert follower["text"] == MODEL_PY + "y = "
    message = page.evaluate("() => { try { DojoEditor.applyChanges('ab', [5, [0, 'x']]); }"
                            " catch (error) { return error.message; } }")
    assert "5 characters" in message


def test_line_wrapping_option_and_toggle(page: Any) -> None:
    long_line = "x = " + " + ".join(["1"] * 200) + "\n"
    page.evaluate("(text) => window.editorTest.model.setValue(text)", long_line)
    wrapping = "() => document.querySelector('#model + .dojo-editor .cm-content').classList.contains('cm-lineWrapping')"
    assert page.evaluate(wrapping) is False
    page.evaluate("() => window.editorTest.model.setLineWrapping(true)")
    assert page.evaluate(wrapping) is True
    assert page.evaluate("() => document.querySelector('#model + .dojo-editor .cm-scroller').scrollWidth"
                         " <= document.querySelector('#model + .dojo-editor .cm-scroller').clientWidth")
    page.evaluate("() => window.editorTest.model.setLineWrapping(false)")
    assert page.evaluate(wrapping) is False
    made = page.evaluate("""() => { const e = DojoEditor.create({parent: document.body, doc: 'a', lineWrapping: true,
        label: 'Wrapped'}); return e.view.contentDOM.classList.contains('cm-lineWrapping'); }""")
    assert made is True


def test_mark_line_and_reveal_line_leave_focus_and_selection(page: Any) -> None:
    page.evaluate("() => window.editorTest.data.markLine(2)")
    marked = page.locator("#data-editor .cm-dojo-marked-line")
    expect(marked).to_have_count(1)
    expect(marked).to_have_text("    return split")
    before = page.evaluate("() => window.editorTest.data.view.state.selection.main.head")
    page.evaluate("() => window.editorTest.data.revealLine(2)")
    assert page.evaluate("() => window.editorTest.data.view.state.selection.main.head") == before
    assert page.evaluate("() => window.editorTest.data.view.hasFocus") is False
    page.evaluate("() => window.editorTest.data.markLine(null)")
    expect(marked).to_have_count(0)
