"""Real Chromium: an admin forks warm-up, plants a bug by editing the solution, validates, sees the
matrix and publishes; a candidate then finds the new challenge and solves it through the API."""

from __future__ import annotations

import json
import re
import urllib.request
import uuid
from typing import Any

import pytest

from app.engine.builtin import find_builtin
from web.live_server import LiveServer, press_button
from web.test_browser import _sign_in, browser, page, server  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.bwrap]
# Warm-up (two bugs, the smallest built-in) and a small training run keep the validation (the solution twice,
# the starter, three mutants and any masking pairs, each a sandboxed run) and the grading quick on two cores.
PLANTED = ("self.c_proj(self.gelu(self.c_fc(x)))", "self.c_proj(self.c_fc(x))")  # the MLP's line in model.py
SMALL_TRAINING = {"steps": "80", "batch size": "8", "block size": "16", "n layer": "1", "n head": "2",
                  "n embd": "32"}


def _api(live: LiveServer, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    request = urllib.request.Request(f"{live.url}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_admin_plants_validates_publishes_and_a_candidate_solves_it(
        browser: Any, page: Any, server: LiveServer) -> None:  # noqa: F811
    slug = f"warmer-{uuid.uuid4().hex[:6]}"
    _sign_in(page, server, server.users["admin"], server.password)
    page.wait_for_url(f"{server.url}/admin")
    page.get_by_role("link", name="Scenarios", exact=True).click()
    page.get_by_label("Slug").fill(slug)
    page.get_by_label("Title").fill("The Warmer Warm-up")
    page.get_by_label("Start from").select_option(label="Fork warm-up v1 (published)")
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url(f"{server.url}/admin/scenarios/{slug}/versions/1/edit")
    for name, value in SMALL_TRAINING.items():
        page.get_by_label(name, exact=True).fill(value)
    press_button(page, "Save draft")
    page.get_by_text("Draft saved.").wait_for()

    page.get_by_role("link", name="Add bug").click()
    page.get_by_label("Kind").select_option("mlp-no-nonlinearity")
    page.get_by_label("Component").select_option("general")
    page.get_by_label("Bug id").fill("gelu-dropped")
    page.get_by_label("Title").fill("The MLP lost its activation")
    for n, hint in enumerate(["Scale the MLP's input: what happens to its output?",
                              "Two linear layers in a row are one.",
                              "Put the GELU back between c_fc and c_proj."], start=1):
        page.get_by_label(f"Hint {n}", exact=False).fill(hint)
    page.get_by_label("Expected behaviour").fill("The MLP is a nonlinear function of its input.")
    page.get_by_label("How to detect it").fill("The MLP's output scales linearly with its input.")
    page.get_by_label("The fix").fill("Apply self.gelu to c_fc's output.")
    # The textarea holds the text (the code editor, once enhanced, keeps it in sync); type into the editor.
    solution = page.locator("textarea[name='edited/model.py']").input_value()
    page.get_by_role("textbox", name="Editor: model.py (copy of the solution)").fill(
        solution.replace(PLANTED[0], PLANTED[1]))
    press_button(page, "Check edits")
    page.get_by_text("model.py line 56: applies exactly once").wait_for()
    press_button(page, "Add bug")
    page.get_by_text("Bug gelu-dropped planted.").wait_for()

    page.get_by_role("button", name="Validate").click()
    page.locator("#validation p[role=status]", has_text=re.compile(r"Validation queued|Validating")).wait_for()
    # htmx polls the validation section until the job ends and the matrix replaces the progress line.
    page.get_by_role("heading", name="Bug × test matrix").wait_for(timeout=600_000)
    assert page.locator(".validation-verdict").inner_text() == "Valid."
    # No status line outlives the job it reported ("Validation queued." above "Valid." was stale).
    assert page.get_by_text(re.compile("Validation queued|Validating")).count() == 0
    row = page.locator("table.matrix tr", has_text="gelu-dropped")
    assert row.locator("td.caught").count() >= 1
    assert page.locator("table.matrix tbody tr").count() == 3
    page.screenshot(path=str(server.data_dir / "authoring-version.png"), full_page=True)
    page.get_by_role("button", name="Publish").click()
    page.get_by_text("Published.").wait_for()
    assert page.locator(".status").first.inner_text() == "published"

    # The candidate finds it on the dashboard and solves it in the workspace.
    candidate = browser.new_context().new_page()
    _sign_in(candidate, server, server.users["candidate"], server.password)
    candidate.wait_for_url(f"{server.url}/candidate")
    candidate.get_by_role("link", name="The Warmer Warm-up").click()
    candidate.wait_for_url(f"{server.url}/challenges/{slug}")
    assert PLANTED[1] in candidate.locator("textarea[name='file:model.py']").input_value()
    for name, text in find_builtin("warm-up").solution_files.items():  # the fork's solution: every bug fixed
        candidate.get_by_role("tab", name=name).click()
        candidate.get_by_role("textbox", name=f"Editor: {name}").fill(text)
    candidate.get_by_role("button", name="Submit").click()
    results = candidate.get_by_role("region", name="Results")
    results.get_by_text("Passed", exact=True).first.wait_for(timeout=300_000)
    candidate.context.close()

    # The same through the API, as a client script would.
    token = _api(server, "POST", "/api/auth/token", {"email": server.users["candidate"],
                                                     "password": server.password})["access_token"]
    starter = _api(server, "GET", f"/api/scenarios/{slug}", token=token)["files"]
    assert PLANTED[1] in starter["model.py"]
