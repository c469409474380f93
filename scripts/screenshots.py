"""Start the app on a fresh data directory, sign in as each role in Chromium, save PNGs to docs/screenshots/.

Usage: .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from web.live_server import CHROMIUM_ARGS, LiveServer, live_server  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}


def sign_in(page: object, server: LiveServer, role: str) -> None:
    page.goto(f"{server.url}/sign-in")  # type: ignore[attr-defined]
    page.get_by_label("Email").fill(server.users[role])  # type: ignore[attr-defined]
    page.get_by_label("Password").fill(server.password)  # type: ignore[attr-defined]
    page.get_by_role("button", name="Sign in").click()  # type: ignore[attr-defined]
    page.wait_for_load_state("networkidle")  # type: ignore[attr-defined]


def shoot(page: object, out: Path, name: str) -> None:
    path = out / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="dojo-shots-") as tmp, live_server(Path(tmp) / "data") as server:
        print(f"app running at {server.url}")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport=VIEWPORT).new_page()
            page.goto(f"{server.url}/sign-in")
            shoot(page, args.out, "sign-in")

            sign_in(page, server, "interviewer")
            page.get_by_label("Candidate email").fill("ada@example.com")
            page.get_by_role("button", name="Create interview").click()
            page.get_by_label("Invite link").wait_for()
            shoot(page, args.out, "interviewer-dashboard")
            invite_url = page.get_by_label("Invite link").input_value()
            page.context.close()

            page = browser.new_context(viewport=VIEWPORT).new_page()
            page.goto(invite_url)
            shoot(page, args.out, "invite")
            page.context.close()

            page = browser.new_context(viewport=VIEWPORT).new_page()
            sign_in(page, server, "candidate")
            shoot(page, args.out, "candidate-dashboard")
            page.context.close()

            page = browser.new_context(viewport=VIEWPORT).new_page()
            sign_in(page, server, "admin")
            shoot(page, args.out, "admin-dashboard")
            page.goto(f"{server.url}/admin/users")
            shoot(page, args.out, "admin-users")
            page.goto(f"{server.url}/admin/no-such-page")
            shoot(page, args.out, "not-found")
            page.context.close()

            page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            sign_in(page, server, "candidate")
            shoot(page, args.out, "candidate-mobile")
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
