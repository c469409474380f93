"""Two `dojo serve` processes on one database and one Redis share sign-outs and login throttling.

A cookie signed out on one process is refused by the other; wrong passwords counted by one process
throttle the same client on the other (the counters live in Redis, the sign-outs in the database).
"""

from __future__ import annotations

import re
import subprocess
import uuid
from collections.abc import Iterator

import httpx
import pytest
from dispatch.processes import dojo_command, dojo_env, free_port, kill_group, start_dojo, wait_for
from services import REDIS_URL

from app.core.paths import ROOT_DIR

pytestmark = [pytest.mark.redis, pytest.mark.processes]
PASSWORD = "shared-state-password"
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


@pytest.fixture(scope="module")
def two_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[str], str]]:
    data = tmp_path_factory.mktemp("shared") / "data"
    data.mkdir()
    email = f"shared-{uuid.uuid4().hex[:8]}@example.com"
    env = dojo_env(DOJO_DATA_DIR=str(data), DATABASE_URL=f"sqlite:///{data / 'dojo.sqlite3'}",
                   RATE_LIMIT_STORAGE_URL=REDIS_URL, WARM_REFERENCES="0", WORKER_CONCURRENCY="1")
    env.pop("BROKER_URL", None)
    for args in (["migrate"], ["create-user", "--email", email, "--password", PASSWORD, "--role", "candidate"]):
        subprocess.run([*dojo_command(), *args], cwd=ROOT_DIR, env=env, check=True, capture_output=True, timeout=120)
    ports = [free_port(), free_port()]
    procs = [start_dojo(["serve", "--port", str(port)], env=env, log=data / f"web-{port}.log") for port in ports]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for url in urls:
            wait_for(lambda u=url: _answers(u), timeout=90, what=f"{url} to answer")
        yield urls, email
    finally:
        for proc in procs:
            kill_group(proc)


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _sign_in(client: httpx.Client, email: str, password: str) -> int:
    token = CSRF.search(client.get("/sign-in").text)
    assert token
    form = {"email": email, "password": password, "csrf_token": token.group(1)}
    return client.post("/sign-in", data=form).status_code


def test_a_sign_out_on_one_process_is_refused_by_the_other(two_servers: tuple[list[str], str]) -> None:
    (first, second), email = two_servers
    with httpx.Client(base_url=first) as a:
        assert _sign_in(a, email, PASSWORD) == 303
        cookies = dict(a.cookies)
        with httpx.Client(base_url=second, cookies=cookies) as b:
            assert b.get("/candidate").status_code == 200
        token = CSRF.search(a.get("/candidate").text)
        assert token and a.post("/sign-out", data={"csrf_token": token.group(1)}).status_code == 303
    with httpx.Client(base_url=second, cookies=cookies) as b:
        assert b.get("/candidate").status_code == 303  # to sign-in: the copied cookie is dead everywhere


def test_wrong_passwords_counted_by_one_process_throttle_the_other(two_servers: tuple[list[str], str]) -> None:
    (first, second), email = two_servers
    with httpx.Client(base_url=first) as a:
        for _ in range(5):  # LOGIN_ATTEMPTS_PER_ACCOUNT
            assert _sign_in(a, email, "not the password") == 401
    with httpx.Client(base_url=second) as b:
        assert _sign_in(b, email, PASSWORD) == 429
