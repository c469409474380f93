"""A real `dojo serve` in a subprocess on a free localhost port, with its own data directory and users.

Used by the browser tests and by scripts/screenshots.py.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ROLES = ("candidate", "interviewer", "admin")
USERS = {role: f"{role}@dojo.example" for role in ROLES}  # role -> email, the same on every live server
PASSWORD = "browser-test-password"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]


@dataclass
class LiveServer:
    url: str
    data_dir: Path
    env: dict[str, str]
    users: dict[str, str]  # role -> email
    password: str = PASSWORD


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _dojo(env: dict[str, str], *commands: list[str]) -> None:
    """Run `dojo` commands one after another in one process (an interpreter start and the app's imports
    once, not once per command); stops at the first that fails."""
    script = ("import json, sys\nfrom app.cli import main\n"
              "for argv in json.loads(sys.argv[1]):\n    code = main(argv)\n    if code:\n        sys.exit(code)\n")
    subprocess.run([sys.executable, "-c", script, json.dumps(commands)], env=env, cwd=ROOT, check=True,
                   capture_output=True)


_seeded: Path | None = None


def _seeded_database(env: dict[str, str]) -> Path:
    """A SQLite database migrated to head with one user per role, made once per process and copied for each
    server: every server starts from the same one, and making it is an interpreter, the app's imports, the
    migrations and three password hashes (about 2 CPU-seconds) that a module's server would otherwise pay."""
    global _seeded
    if _seeded is None:
        made = Path(tempfile.mkdtemp(prefix="dojo-live-seed-")) / "dojo.sqlite3"
        atexit.register(shutil.rmtree, made.parent, True)
        seed_env = {**env, "DOJO_DATA_DIR": str(made.parent), "DATABASE_URL": f"sqlite:///{made}"}
        _dojo(seed_env, ["migrate"], *(["create-user", "--email", email, "--password", PASSWORD, "--role", role]
                                       for role, email in USERS.items()))
        _seeded = made
    return _seeded


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"server not healthy after {timeout}s:\n{log.read_text()[-3000:]}")


@contextmanager
def live_server(data_dir: Path, **settings: str) -> Iterator[LiveServer]:
    """Serve a fresh copy of a migrated SQLite database with one user per role; stop it afterwards.

    `settings` are environment variables for the server (e.g. WARM_SANDBOXES="1")."""
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if key not in {"BROKER_URL", "DATABASE_URL", "SECRET_KEY"}}
    env.update({
        "DOJO_DATA_DIR": str(data_dir),
        "DATABASE_URL": f"sqlite:///{data_dir / 'dojo.sqlite3'}",
        "WORKER_CONCURRENCY": "1",
        "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
        "PYTHONUNBUFFERED": "1",
    })
    shutil.copyfile(_seeded_database(env), data_dir / "dojo.sqlite3")  # before the server's own settings
    env.update(settings)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = data_dir / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
        )
        try:
            _wait_healthy(url, proc, log)
            yield LiveServer(url=url, data_dir=data_dir, env=env, users=dict(USERS))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


@contextmanager
def launch_chromium(executable: str) -> Iterator[Any]:
    """A headless Chromium (the Debian one at `executable`) through Playwright, closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def press_button(page: Any, name: str) -> None:
    """Press a button below the code editors from the keyboard rather than click it. Under load a click once
    reached the page and its form never posted (the server saw no request in 20 s), in the lobby and on the
    draft edit page. Why is not known: a layout-shift observer on a quiet draft edit page saw the buttons
    never move after load. A key press on the focused button does not depend on where the button is."""
    page.get_by_role("button", name=name).press("Enter")


def sign_in_as(page: Any, server: LiveServer, email: str, password: str = PASSWORD) -> None:
    """Sign in through the real form in a Playwright page and wait for the landing page."""
    page.goto(f"{server.url}/sign-in")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state("networkidle")


def accept_invite(page: Any, invite_url: str, password: str) -> int:
    """Open an invite as a new candidate, set the password, press Start in the lobby and land in the
    interview workspace; its id."""
    page.goto(invite_url)
    page.get_by_label("New password").fill(password)
    page.get_by_label("Repeat the password").fill(password)
    page.get_by_role("button", name="Set password and continue").click()
    page.wait_for_url(re.compile(r".*/interviews/\d+/lobby"))
    page.get_by_role("button", name="Start the interview").click()
    page.wait_for_url(re.compile(r".*/interviews/\d+/workspace.*"))
    found = re.search(r"/interviews/(\d+)/", page.url)
    assert found is not None, page.url
    return int(found.group(1))


RUBRIC = ("Finding the bugs", "Verification method", "Root-cause explanation", "Code quality", "Communication")


def save_review(page: Any, *, score: int, decision: str, notes: str) -> None:
    """On an interview page: the same score on every default rubric criterion, a decision and notes, saved."""
    for title in RUBRIC:
        page.locator("fieldset", has_text=title).locator(f"input[value='{score}']").check()
    page.get_by_label("Decision").select_option(decision)
    page.get_by_label("Private notes").fill(notes)
    page.get_by_role("button", name="Save review").click()
    page.get_by_text("Review saved.").wait_for()
