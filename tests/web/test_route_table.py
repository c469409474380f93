"""Every route answers every role with the status in route_table.py, and every route has a row."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from web.route_table import ROLES, ROUTE_TABLE
from web.support import Account, csrf_from, page_csrf, sign_in


def declared_routes(app: FastAPI) -> set[tuple[str, str]]:
    """(method, path) of every route the app serves, HEAD aside (mounts such as /static have no methods)."""
    found = set()
    for route in iter_route_contexts(app.routes):
        for method in route.methods or ():
            if method != "HEAD":
                found.add((method, str(route.path)))
    return found


def test_route_table_lists_every_route_and_nothing_else(web_app: FastAPI) -> None:
    declared = declared_routes(web_app)
    missing = sorted(declared - ROUTE_TABLE.keys())
    stale = sorted(ROUTE_TABLE.keys() - declared)
    assert not missing, f"routes without a row in tests/web/route_table.py (add one per route): {missing}"
    assert not stale, f"rows in tests/web/route_table.py for routes that no longer exist: {stale}"


@pytest.mark.parametrize("role", ROLES)
def test_every_route_answers_role_with_expected_status(
    role: str, web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    signed = TestClient(web_app)
    if role != "anonymous":
        sign_in(signed, make_account(role).email)
    else:
        page_csrf(signed)  # an anonymous visitor with a session nonce, as after opening any page
    cookies = dict(signed.cookies)
    token = page_csrf(signed, "/sign-in") if role == "anonymous" else _token_from_dashboard(signed)

    mismatches = []
    for (method, template), expect in sorted(ROUTE_TABLE.items(), key=lambda row: (row[1].ends_session, row[0])):
        # A fresh client per row, so a row that signs out cannot change the rows after it.
        client = TestClient(web_app, cookies=cookies)
        path = expect.path or template
        kwargs: dict[str, object] = {"headers": {"X-CSRF-Token": token}, "follow_redirects": False}
        if method in {"POST", "PUT", "PATCH"}:
            if expect.json is not None:
                kwargs["json"] = expect.json
            else:
                kwargs["data"] = expect.form
        response = client.request(method, path, **kwargs)  # type: ignore[arg-type]
        if response.status_code != expect.status_for(role):
            got = f"{response.status_code} {response.text[:120]!r}"
            mismatches.append(f"{method} {path}: expected {expect.status_for(role)}, got {got}")
    assert not mismatches, f"as {role}:\n" + "\n".join(mismatches)


def _token_from_dashboard(client: TestClient) -> str:
    response = client.get("/candidate")
    assert response.status_code == 200
    return csrf_from(response.text)


UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


def test_every_state_changing_route_refuses_a_cookie_request_without_its_csrf_token(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    """Every unsafe route, page or cookie-authenticated API, answers 403 without the token (even for admins)."""
    signed = TestClient(web_app)
    sign_in(signed, make_account("admin").email)
    cookies = dict(signed.cookies)
    unsafe = sorted(key for key in ROUTE_TABLE if key[0] in UNSAFE)
    assert unsafe, "the route table has no state-changing routes"
    accepted = []
    for method, template in unsafe:
        expect = ROUTE_TABLE[(method, template)]
        client = TestClient(web_app, cookies=cookies)
        kwargs: dict[str, object] = {"follow_redirects": False}
        if method in {"POST", "PUT", "PATCH"}:
            kwargs.update({"json": expect.json} if expect.json is not None else {"data": expect.form})
        response = client.request(method, expect.path or template, **kwargs)  # type: ignore[arg-type]
        if response.status_code != 403:
            accepted.append(f"{method} {template}: {response.status_code}")
    assert not accepted, "state-changing routes that did not refuse a missing CSRF token:\n" + "\n".join(accepted)
