"""Real Chromium against a real `dojo serve`: sign in as each role, sign out, join through an invite."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from services import require_chromium

from web.live_server import LiveServer, launch_chromium, live_server, sign_in_as

pytestmark = pytest.mark.browser

DASHBOARDS = {"candidate": ("/candidate", "Your challenges"), "interviewer": ("/interviewer", "Interviews"),
              "admin": ("/admin", "Administration")}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_chromium()
    with live_server(tmp_path_factory.mktemp("live") / "data") as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: LiveServer) -> Iterator[object]:
    with launch_chromium(require_chromium()) as chromium:
        yield chromium


@pytest.fixture
def page(browser: object, console_errors: list[str]) -> Iterator[object]:
    """A fresh browser context per test; script errors, CSP violations and failing assets fail the test.

    Error statuses of whole pages (a 401 sign-in form) are expected and not counted.
    """
    context = browser.new_context()  # type: ignore[attr-defined]
    tab = context.new_page()
    errors = console_errors

    def _console(message: object) -> None:
        text = message.text  # type: ignore[attr-defined]
        if message.type == "error" and not text.startswith("Failed to load resource"):  # type: ignore[attr-defined]
            errors.append(text)

    def _response(response: object) -> None:
        request = response.request  # type: ignore[attr-defined]
        if response.status >= 400 and request.resource_type != "document":  # type: ignore[attr-defined]
            errors.append(f"{response.status} {request.url}")  # type: ignore[attr-defined]

    tab.on("console", _console)
    tab.on("response", _response)
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"browser console errors: {errors}"


def _sign_in(page: object, server: LiveServer, email: str, password: str) -> None:
    sign_in_as(page, server, email, password)


@pytest.mark.parametrize("role", ["candidate", "interviewer", "admin"])
def test_each_role_signs_in_and_sees_its_dashboard(page: object, server: LiveServer, role: str) -> None:
    path, heading = DASHBOARDS[role]
    _sign_in(page, server, server.users[role], server.password)
    page.wait_for_url(f"{server.url}{path}")  # type: ignore[attr-defined]
    assert page.get_by_role("heading", level=1).inner_text() == heading  # type: ignore[attr-defined]
    assert server.users[role] in page.locator("header").inner_text()  # type: ignore[attr-defined]


def test_wrong_password_shows_the_error_in_the_browser(page: object, server: LiveServer) -> None:
    _sign_in(page, server, server.users["candidate"], "not-the-password")
    assert page.get_by_role("alert").inner_text() == "Email or password is incorrect."  # type: ignore[attr-defined]


def test_sign_out_posts_with_csrf_and_ends_the_session(page: object, server: LiveServer) -> None:
    _sign_in(page, server, server.users["candidate"], server.password)
    page.wait_for_url(f"{server.url}/candidate")  # type: ignore[attr-defined]
    page.get_by_role("button", name="Sign out").click()  # type: ignore[attr-defined]
    page.wait_for_url(f"{server.url}/sign-in")  # type: ignore[attr-defined]
    page.goto(f"{server.url}/candidate")  # type: ignore[attr-defined]
    assert page.url.startswith(f"{server.url}/sign-in?next=")  # type: ignore[attr-defined]


def test_interviewer_invites_and_the_candidate_joins(browser: object, page: object, server: LiveServer) -> None:
    _sign_in(page, server, server.users["interviewer"], server.password)
    page.wait_for_url(f"{server.url}/interviewer")  # type: ignore[attr-defined]
    page.get_by_label("Candidate email").fill("newcomer@dojo.example")  # type: ignore[attr-defined]
    page.get_by_role("button", name="Create interview").click()  # type: ignore[attr-defined]
    invite_url = page.get_by_label("Invite link").input_value()  # type: ignore[attr-defined]  # htmx swapped it in
    assert invite_url.startswith(f"{server.url}/invite/")
    assert "newcomer@dojo.example" in page.locator("table").inner_text()  # type: ignore[attr-defined]

    candidate = browser.new_context().new_page()  # type: ignore[attr-defined]
    candidate.goto(invite_url)
    candidate.get_by_label("New password").fill("newcomer-password")
    candidate.get_by_label("Repeat the password").fill("newcomer-password")
    candidate.get_by_role("button", name="Set password and continue").click()
    candidate.wait_for_url(re.compile(r".*/interviews/\d+/lobby"))  # the lobby first: no clock yet
    assert "The clock has not started" in candidate.locator("main").inner_text()
    candidate.get_by_role("button", name="Start the interview").click()
    candidate.wait_for_url(re.compile(r".*/interviews/\d+/workspace"))
    assert "newcomer@dojo.example" in candidate.get_by_role("banner").inner_text()
    candidate.goto(invite_url)
    assert "already been used" in candidate.locator("main").inner_text()
    candidate.context.close()


def test_admin_changes_a_role_with_htmx(page: object, server: LiveServer) -> None:
    # Each wait reads the option the server marked `selected` in the swapped row: the select's value
    # changes in the browser at once, so waiting on it let the second change race the first answer.
    _sign_in(page, server, server.users["admin"], server.password)
    page.goto(f"{server.url}/admin/users")  # type: ignore[attr-defined]
    row = page.locator("tr", has_text=server.users["candidate"])  # type: ignore[attr-defined]
    row.get_by_label(f"Role of {server.users['candidate']}").select_option("interviewer")
    row.get_by_role("button", name="Save role").click()
    page.wait_for_function(  # type: ignore[attr-defined]
        "email => [...document.querySelectorAll('tr')].some(r => r.textContent.includes(email)"
        " && r.querySelector('option[selected]').value === 'interviewer')",
        arg=server.users["candidate"],
    )
    assert page.url == f"{server.url}/admin/users"  # type: ignore[attr-defined]  # swapped in place, no navigation
    row.get_by_label(f"Role of {server.users['candidate']}").select_option("candidate")
    row.get_by_role("button", name="Save role").click()
    page.wait_for_function(  # type: ignore[attr-defined]
        "email => [...document.querySelectorAll('tr')].some(r => r.textContent.includes(email)"
        " && r.querySelector('option[selected]').value === 'candidate')",
        arg=server.users["candidate"],
    )


def test_api_docs_render_from_local_assets(page: object, server: LiveServer) -> None:
    page.goto(f"{server.url}/docs")  # type: ignore[attr-defined]
    page.get_by_text("/api/auth/token", exact=True).first.wait_for()  # type: ignore[attr-defined]




def test_htmx_error_is_shown_in_the_row_and_csrf_failure_in_the_alert(
    page: object, server: LiveServer, console_errors: list[str]
) -> None:
    _sign_in(page, server, server.users["admin"], server.password)
    page.goto(f"{server.url}/admin/users")  # type: ignore[attr-defined]
    own = page.locator("tr", has_text=server.users["admin"])  # type: ignore[attr-defined]
    own.get_by_label(f"Role of {server.users['admin']}").select_option("candidate")
    own.get_by_role("button", name="Save role").click()
    page.get_by_text("You cannot remove your own admin role.").wait_for()  # type: ignore[attr-defined]
    # A stale CSRF token: htmx leaves the page alone and the alert says why.
    page.evaluate(  # type: ignore[attr-defined]
        "document.body.setAttribute('hx-headers', JSON.stringify({'X-CSRF-Token': 'stale'}));"
        "document.querySelectorAll('input[name=csrf_token]').forEach(i => i.value = 'stale')"
    )
    row = page.locator("tr", has_text=server.users["interviewer"])  # type: ignore[attr-defined]
    row.get_by_role("button", name="Save role").click()
    alert = page.locator("#request-error")  # type: ignore[attr-defined]
    alert.wait_for()
    assert "security token" in alert.inner_text()
    assert any(error.startswith("422 ") for error in console_errors)
    assert any(error.startswith("403 ") for error in console_errors)
    console_errors.clear()  # both failures were provoked on purpose
