"""A candidate works on a training-pipeline challenge (padded-truths, pipeline-v1) in a real Chromium against a
real `dojo serve` that grades in bubblewrap.

model.py is the scenario's: its tab says read-only, typing into it changes nothing, and it is never sent. The
starter's Submit shows the Accumulation check, the LR schedule and the Resume check, each an image with its
name, a sentence and a table; with the solution's data.py pasted in, Submit passes. axe-core finds nothing
serious in the workspace.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from services import require_bwrap, require_chromium
from web.axe import describe, serious_violations
from web.live_server import LiveServer, live_server, sign_in_as

from app.engine.builtin import find_builtin

pytestmark = [pytest.mark.browser, pytest.mark.bwrap, pytest.mark.slow]

SLUG = "padded-truths"
GRADING_TIMEOUT_MS = 420_000  # the first grading also computes the scenario's reference
CHARTS = {
    "Accumulation check": r"Your accumulated gradient equals one batch's with 1, 2, 4 and 8 micro-batches",
    "LR schedule": r"Your lr matches the reference's at every step",
    "Resume check": r"Your resumed run matches the run never stopped",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    require_bwrap()
    with live_server(tmp_path_factory.mktemp("pipeline") / "data", WARM_REFERENCES="0") as running:
        yield running


def _submit_and_wait(page: Any, verdict: str) -> Any:
    results = page.get_by_role("region", name="Results")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results.locator(".verdict-label")).to_have_text(verdict, timeout=GRADING_TIMEOUT_MS)
    found = serious_violations(page)
    assert not found, f"axe on the results:\n{describe(found)}"
    return results


def test_model_py_is_read_only_and_the_three_charts_show(server: LiveServer, browser: Any) -> None:
    package = find_builtin(SLUG)
    assert package is not None and package.interface == "pipeline-v1"
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.post_data or "") if request.method == "POST" else None)
    sign_in_as(page, server, server.users["candidate"], server.password)
    # The catalogue's filter and the card's label name the track.
    page.get_by_role("link", name=re.compile(r"^Training pipeline \(pipeline-v1\)")).click()
    expect(page.get_by_role("link", name=package.title)).to_be_visible()
    expect(page.get_by_text("Training pipeline (pipeline-v1)").nth(1)).to_be_visible()
    page.get_by_role("link", name=package.title).click()
    page.wait_for_url(re.compile(rf".*/challenges/{SLUG}$"))
    expect(page.get_by_text("Training pipeline (pipeline-v1)").first).to_be_visible()

    # model.py: a tab that says read-only, an editor that takes no typing.
    expect(page.get_by_role("tab", name="data.py", exact=True)).to_have_attribute("aria-selected", "true")
    page.get_by_role("tab", name="model.py (read-only)", exact=True).click()
    editor = page.get_by_label("Editor: model.py (read-only)", exact=True)
    expect(editor).to_have_attribute("aria-readonly", "true")
    expect(page.get_by_text("model.py is read-only:")).to_be_visible()
    text = "() => window.dojoEditors['model.py'].get()"  # the document, not just the lines on screen
    before = page.evaluate(text)
    assert before == package.solution_files["model.py"]
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("import os  # typed")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    assert page.evaluate(text) == before
    expect(page.locator("#save-status")).to_have_text("Saved as revision 0")
    found = serious_violations(page)
    assert not found, f"axe on the workspace:\n{describe(found)}"

    # The starter as it is: its bugs are in data.py, so the three charts agree with the reference.
    results = _submit_and_wait(page, "Failed")
    for name, sentence in CHARTS.items():
        image = results.get_by_role("img", name=name, exact=True)
        expect(image).to_be_visible()
        summary_id = image.get_attribute("aria-describedby")
        expect(page.locator(f"#{summary_id}")).to_have_text(re.compile(sentence))
        results.get_by_text(f"{name} as a table").click()
        expect(results.get_by_role("table").filter(has=page.get_by_role("columnheader", name=re.compile(
            r"Micro-batches|Step"))).first).to_be_visible()
    expect(results.get_by_role("rowheader", name="4 (resumed here)")).to_be_visible()
    found = serious_violations(page)
    assert not found, f"axe on the opened tables:\n{describe(found)}"
    assert not any("file:model.py" in body or '"model.py"' in body for body in sent), "model.py was sent"

    # The solution's data.py, pasted in: Submit passes.
    page.get_by_role("tab", name="data.py", exact=True).click()
    page.get_by_label("Editor: data.py", exact=True).click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(package.solution_files["data.py"])
    expect(page.locator("#save-status")).to_have_text(re.compile(r"Saved as revision [1-9]"), timeout=15_000)
    results = _submit_and_wait(page, "Passed")
    for name in CHARTS:
        expect(results.get_by_role("img", name=name, exact=True)).to_be_visible()
    assert not any("file:model.py" in body or '"model.py"' in body for body in sent), "model.py was sent"
    assert not errors, errors
    context.close()
