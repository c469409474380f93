"""Screenshots of a live interview, in Chromium against a real server, saved to docs/screenshots/:

- interview-live.png: the interviewer's Live region following the candidate (their file, line, Run, its verdict);
- interview-messages.png: the candidate's "Messages from the interviewer";
- review-notes-timeline.png: private notes and a message at their moments under the per-bug timeline;
- review-playback.png: the keystroke playback part-way, with its moments and a diff against the starter.

Usage: .venv/bin/python scripts/screenshots_live.py [--out docs/screenshots] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from web.live_server import CHROMIUM_ARGS, LiveServer, accept_invite, live_server, sign_in_as  # noqa: E402

VIEWPORT = {"width": 1280, "height": 900}
FIX = "        tok_emb = self.transformer.wte(idx)  # (B, T, C)\n"


def element_shot(locator: object, out: Path, name: str) -> None:
    path = out / f"{name}.png"
    locator.screenshot(path=str(path))  # type: ignore[attr-defined]
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def live_interview(browser: object, server: LiveServer, out: Path) -> None:
    interviewer = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[attr-defined]
    sign_in_as(interviewer, server, server.users["interviewer"], server.password)
    interviewer.get_by_label("Candidate email").fill("ada@example.com")
    warm_up = interviewer.locator("#scenario_version_id option", has_text="Warm-up").first.get_attribute("value")
    interviewer.get_by_label("Challenge").select_option(warm_up)
    interviewer.get_by_role("button", name="Create interview").click()
    invite_url = interviewer.get_by_label("Invite link").input_value()

    candidate = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[attr-defined]
    interview_id = accept_invite(candidate, invite_url, "screenshot-password")
    interviewer.goto(f"{server.url}/interviewer/interviews/{interview_id}")
    live = interviewer.get_by_role("region", name="Live")
    live.get_by_label("Candidate's editor: model.py").wait_for()

    editor = candidate.get_by_label("Editor: model.py")
    editor.click()
    candidate.keyboard.press("Control+Home")
    for _ in range(30):
        candidate.keyboard.press("ArrowDown")
    candidate.keyboard.press("End")
    candidate.keyboard.press("Enter")
    candidate.keyboard.type("# positions are never added: check forward()", delay=40)
    time.sleep(1.5)
    candidate.get_by_role("button", name="Run", exact=True).click()
    live.locator("#live-attempts").get_by_text("Run 1").wait_for(timeout=60_000)
    # Its verdict as the interviewer reads it (the first Run waits for the challenge's reference run).
    live.locator("#live-attempts").get_by_text("public checks").wait_for(timeout=600_000)
    time.sleep(1.0)
    live.get_by_label("Private note").fill("Reads the loss at init before touching the code: good habit.")
    live.get_by_role("button", name="Add note").click()
    live.get_by_text("good habit").first.wait_for()
    live.get_by_label("Message to the candidate").fill("Look at how the positions reach the blocks.")
    live.get_by_role("button", name="Send").click()
    candidate.get_by_role("region", name="Messages from the interviewer").get_by_text("positions reach").wait_for(
        timeout=15_000)
    live.get_by_label("Private note").fill("Found the missing position embedding after the hint-free nudge.")
    live.get_by_role("button", name="Add note").click()
    live.get_by_text("hint-free nudge").first.wait_for()
    element_shot(live, out, "interview-live")
    element_shot(candidate.get_by_role("region", name="Messages from the interviewer"), out, "interview-messages")

    interviewer.reload()
    timeline = interviewer.locator("section", has=interviewer.get_by_role("heading", name="Per-bug timeline"))
    interviewer.get_by_role("list", name="Notes and messages on the clock").wait_for()
    element_shot(timeline, out, "review-notes-timeline")
    player = interviewer.locator("#keystroke-player")
    player.wait_for(state="visible", timeout=15_000)
    player.get_by_label("Speed").select_option("8")
    player.locator(".player-marker-list > summary").click()
    player.get_by_role("button", name="Play").click()  # played to the end, then back to the Run's moment
    player.get_by_role("button", name="Play").wait_for(timeout=60_000)
    moments = player.get_by_role("list", name="Moments in the playback")
    moments.get_by_role("button", name="Run 1", exact=False).last.click()  # its verdict, once graded
    player.get_by_label("Compare with").select_option("starter")
    element_shot(player, out, "review-playback")
    candidate.context.close()
    interviewer.context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with (tempfile.TemporaryDirectory(prefix="dojo-shots-live-") as tmp,
          live_server(Path(tmp) / "data", WARM_REFERENCES="0") as server):
        print(f"app running at {server.url}")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            live_interview(browser, server, args.out)
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
