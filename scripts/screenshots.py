"""Start the app on a fresh data directory, sign in as each role in Chromium, save PNGs to docs/screenshots/.

Usage: .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--chromium /usr/bin/chromium]
       [--only workspace-layout]   (just the workspace at 1440x900 after a Run, and at 900 px wide)
       [--only workspace-cache]    (just the Results panel of a llama challenge: a broken KV cache, then fixed)
       [--only workspace-phone]    (just the workspace at 390x844: the brief, then the Code section)
       [--only pipeline]           (just a training-pipeline challenge: model.py read-only, the three charts)
       [--only workspace]          (just The Leaky Mask submitted twice, its coaching, a diff, the dashboard)
       [--only invites]            (just an invite: the Copy button, the lobby, an interview ended early)
       [--only authoring]          (just the admin's pages: the list, matrices, the shared-tests warning)
       [--only interview]          (just an interview: a Run and two Submits, the review, report and comparison)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from web.live_server import CHROMIUM_ARGS, LiveServer, accept_invite, live_server, save_review, sign_in_as  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}


def sign_in(page: object, server: LiveServer, role: str) -> None:
    sign_in_as(page, server, server.users[role], server.password)


def shoot(page: object, out: Path, name: str) -> None:
    path = out / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


SOLUTION = ROOT / "app" / "scenarios_builtin" / "leaky-mask" / "solution"
WARM_UP_SOLUTION = ROOT / "app" / "scenarios_builtin" / "warm-up" / "solution" / "model.py"
NOTES = {
    "How did you find the bugs?": "The label shift one I caught fast because I've been burned by that before.",
    "How did you verify your fixes?": "Ran it on a tiny dataset just to sanity check.",
    "What was your approach, and what would you check first next time?":
        "Isolate each module and test it independently before touching the full forward pass.",
}


def workspace(browser: object, server: LiveServer, out: Path) -> None:
    """The Leaky Mask: the starter, then fixed, answered and submitted (a real grading), a diff, the dashboard."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "candidate")
    page.get_by_role("link", name="The Leaky Mask").click()  # type: ignore[attr-defined]
    page.wait_for_load_state("networkidle")  # type: ignore[attr-defined]
    shoot(page, out, "workspace")
    # The product owner's sample: the three notes on a submit of the starter (the label shift still broken).
    for question, answer in NOTES.items():
        page.get_by_label(question).fill(answer)  # type: ignore[attr-defined]
    page.get_by_role("button", name="Submit").click()  # type: ignore[attr-defined]
    page.locator("#results-body[data-status='Queued'], #results-body[data-status='Running']").wait_for()  # type: ignore[attr-defined]
    shoot(page, out, "workspace-progress")
    page.locator("#results-body[data-status='Failed']").wait_for(timeout=600_000)  # type: ignore[attr-defined]
    tips = page.get_by_role("region", name="Results").locator("article.tip")  # type: ignore[attr-defined]
    tips.nth(2).wait_for(timeout=60_000)
    tips.first.get_by_role("button", name="Helpful", exact=True).click()
    page.get_by_role("status").filter(has_text="Thanks, your rating is saved.").wait_for()  # type: ignore[attr-defined]
    # The Results pane scrolls: expanded, from its Coaching heading (below the pane's sticky title), not mid-tip.
    page.get_by_role("button", name="Expand results").click()  # type: ignore[attr-defined]
    page.locator("#results section.tips").evaluate("""tips => {
      tips.scrollIntoView({block: 'start'});
      tips.closest('.ws-pane').scrollTop -= tips.closest('.ws-pane').querySelector(':scope > h2').offsetHeight;
    }""")  # type: ignore[attr-defined]
    page.get_by_role("region", name="Results").screenshot(path=str(out / "workspace-coaching.png"))  # type: ignore[attr-defined]
    page.get_by_role("button", name="Expand results").click()  # type: ignore[attr-defined]
    print("wrote workspace-coaching.png")
    for name in ("data.py", "model.py"):
        page.get_by_role("tab", name=name).click()  # type: ignore[attr-defined]
        page.get_by_label(f"Editor: {name}").click()  # type: ignore[attr-defined]
        page.keyboard.press("Control+A")  # type: ignore[attr-defined]
        page.keyboard.press("Delete")  # type: ignore[attr-defined]
        page.keyboard.insert_text((SOLUTION / name).read_text())  # type: ignore[attr-defined]
    page.get_by_role("button", name="Submit").click()  # type: ignore[attr-defined]
    page.locator("#results-body[data-status='Passed']").wait_for(timeout=600_000)  # type: ignore[attr-defined]
    page.get_by_role("tab", name="scratch.py").click()  # type: ignore[attr-defined]
    page.get_by_role("button", name="Run scratch").click()  # type: ignore[attr-defined]
    page.locator("#console-body[data-status='Passed']").wait_for(timeout=300_000)  # type: ignore[attr-defined]
    shoot(page, out, "workspace-results")
    page.get_by_role("region", name="History").get_by_role("link", name="Diff").first.click()  # type: ignore[attr-defined]
    page.get_by_role("link", name="Against the starter").click()  # type: ignore[attr-defined]
    shoot(page, out, "workspace-diff")
    page.goto(f"{server.url}/coaching/challenges/leaky-mask/report")  # type: ignore[attr-defined]
    shoot(page, out, "coaching-report")
    # The dashboard with these attempts under "Your attempts", at the size of the other pages.
    page.set_viewport_size(VIEWPORT)  # type: ignore[attr-defined]
    page.get_by_role("link", name="Dashboard", exact=True).click()  # type: ignore[attr-defined]
    page.wait_for_load_state("networkidle")  # type: ignore[attr-defined]
    shoot(page, out, "candidate-dashboard")
    page.context.close()


def workspace_layout(browser: object, server: LiveServer, out: Path) -> None:
    """The warm-up at 1440x900 (an IDE: the verdict beside the code after a Run), then at 900 px (columns)."""
    page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "candidate")
    page.goto(f"{server.url}/challenges/warm-up")
    page.get_by_label("Editor: model.py").locator(".cm-line").nth(30).click(position={"x": 8, "y": 5})
    page.keyboard.press("Control+Enter")  # Run, from the editor
    page.locator("#results-body[data-kind='run'][data-poll='no']").wait_for(state="attached", timeout=600_000)
    page.get_by_role("region", name="Results").locator(".verdict").wait_for()
    shoot(page, out, "workspace-1440")
    page.get_by_role("button", name="Expand results").click()
    shoot(page, out, "workspace-1440-expanded")
    page.get_by_role("button", name="Expand results").click()
    page.context.close()
    page = browser.new_context(viewport={"width": 900, "height": 900}).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "candidate")
    page.goto(f"{server.url}/challenges/warm-up")
    page.wait_for_load_state("networkidle")
    # The editor starts below the fold here: scrolled to once, CodeMirror measures its lines, which a full-page
    # shot alone does not make it do (its gutter would keep estimated line heights).
    page.get_by_label("Editor: model.py").scroll_into_view_if_needed()
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    page.evaluate("() => window.scrollTo(0, 0)")
    shoot(page, out, "workspace-900")
    page.context.close()


def workspace_phone(browser: object, server: LiveServer, out: Path) -> None:
    """The warm-up at 390x844: sections as tabs (a new workspace opens on the brief), then the Code section, with
    Run and Submit fixed at the bottom of the screen."""
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "candidate")
    page.goto(f"{server.url}/challenges/warm-up")
    page.wait_for_load_state("networkidle")
    # The screen as it is: in a full-page shot the fixed Run/Submit bar would sit mid-page over the brief.
    page.screenshot(path=str(out / "workspace-390.png"))
    print("wrote workspace-390.png")
    page.get_by_role("navigation", name="Workspace sections").get_by_role("link", name="Code").click()
    page.screenshot(path=str(out / "workspace-390-code.png"))  # the screen as it is: no page to scroll through
    print("wrote workspace-390-code.png")
    page.context.close()


LLAMA_SOLUTION = ROOT / "app" / "scenarios_builtin" / "norm-and-gate" / "solution" / "model.py"
ROPE_SLICE = "rot = self.rope[start_pos : start_pos + T]"


def workspace_cache(browser: object, server: LiveServer, out: Path) -> None:
    """Flat gates, fragile norms (llama-v1) fixed but for the rotary offset of cached positions: the Results
    panel, its Cache agreement chart jumping after the prefill; with the offset back the chart is flat (two real
    gradings, at 1000 px so the page scrolls rather than the Results pane)."""
    page = browser.new_context(viewport={"width": 1000, "height": 1000}).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "candidate")
    page.goto(f"{server.url}/challenges/norm-and-gate")
    solution = LLAMA_SOLUTION.read_text()
    assert ROPE_SLICE in solution
    results = page.get_by_role("region", name="Results")
    for name, text in (("workspace-cache", solution.replace(ROPE_SLICE, "rot = self.rope[:T]")),
                       ("workspace-cache-fixed", solution)):
        page.get_by_role("tab", name="model.py").click()
        page.get_by_label("Editor: model.py").click()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        page.keyboard.insert_text(text)
        shown = page.evaluate("() => document.getElementById('results-body')?.dataset.attempt ?? ''")
        page.get_by_role("button", name="Submit", exact=True).click()
        page.wait_for_function("""(shown) => {
          const body = document.getElementById('results-body');
          return body && body.dataset.attempt !== shown && body.dataset.poll === 'no';
        }""", arg=shown, timeout=600_000)
        chart = results.locator(".cache-agreement")
        chart.wait_for()
        chart.locator("details").evaluate("element => element.open = false")
        if name == "workspace-cache":
            results.screenshot(path=str(out / f"{name}.png"))  # the whole Results panel, once
        chart.screenshot(path=str(out / f"{name}-chart.png"))
        print(f"wrote {name}-chart.png")
    page.context.close()


PIPELINE_TRAIN = ROOT / "app" / "scenarios_builtin" / "padded-truths" / "solution" / "train.py"
# Three classic train.py bugs: each micro-batch divided once more by their count, a warmup from 0, the RNG
# state left out of the resume.
PIPELINE_BUGS = (
    ("loss = loss_sum(model, mb, amp_dtype) / n_tokens",
     "loss = loss_sum(model, mb, amp_dtype) / n_tokens / len(micro_batches)"),
    ("return max_lr * (step + 1) / (warmup_steps + 1)", "return max_lr * step / warmup_steps"),
    ('    torch.set_rng_state(state["rng"])\n', ""),
)


def workspace_pipeline(browser: object, server: LiveServer, out: Path) -> None:
    """Padded truths (pipeline-v1): the workspace with model.py's read-only tab shown, then a train.py with an
    accumulation, a warmup and a resume bug submitted (a real grading): its Accumulation check, LR schedule and
    Resume check (at 1000 px so the page scrolls rather than the Results pane)."""
    page = browser.new_context(viewport={"width": 1000, "height": 1000}).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "candidate")
    page.goto(f"{server.url}/challenges/padded-truths")
    page.get_by_role("tab", name="model.py (read-only)").click()
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(out / "workspace-pipeline.png"))
    print("wrote workspace-pipeline.png")
    train = PIPELINE_TRAIN.read_text()
    for wrong, broken in PIPELINE_BUGS:
        assert wrong in train, wrong
        train = train.replace(wrong, broken)
    page.get_by_role("tab", name="train.py").click()
    page.get_by_label("Editor: train.py").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(train)
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_function("""() => {
      const body = document.getElementById('results-body');
      return body && body.dataset.attempt && body.dataset.poll === 'no';
    }""", timeout=600_000)
    charts = page.get_by_role("region", name="Results").locator(".pipeline-checks")
    charts.wait_for()
    charts.screenshot(path=str(out / "workspace-pipeline-charts.png"))
    print("wrote workspace-pipeline-charts.png")
    page.context.close()


def interview(browser: object, server: LiveServer, invite_url: str, out: Path) -> None:
    """The candidate accepts the invite and submits twice; the interviewer reviews, plays back, decides."""
    candidate = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[attr-defined]
    interview_id = accept_invite(candidate, invite_url, "screenshot-password")
    shoot(candidate, out, "interview-workspace")
    # A Run of the starter first: the review shows it as the candidate read it (its public checks).
    candidate.get_by_role("button", name="Run", exact=True).click()
    candidate.locator("#results-body[data-poll='no'][data-kind='run']").wait_for(timeout=600_000)
    candidate.get_by_role("button", name="Submit", exact=True).click()
    candidate.locator("#results-body[data-status='Failed'][data-kind='submit']").wait_for(timeout=600_000)
    candidate.get_by_label("Editor: model.py").click()
    candidate.keyboard.press("Control+A")
    candidate.keyboard.press("Delete")
    candidate.keyboard.insert_text(WARM_UP_SOLUTION.read_text())
    candidate.get_by_label("How did you find the bugs?").fill("Compared the loss at init with ln V.")
    candidate.get_by_role("button", name="Submit", exact=True).click()
    candidate.locator("#results-body[data-status='Passed'][data-kind='submit']").wait_for(timeout=600_000)
    candidate.context.close()

    page = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "interviewer")
    page.goto(f"{server.url}/interviewer/interviews/{interview_id}")
    save_review(page, score=3, decision="hire", notes="Fixed both bugs; ask how the loss at init was checked.")
    shoot(page, out, "review")
    page.goto(f"{server.url}/interviewer/interviews/{interview_id}/report")
    shoot(page, out, "review-report")
    page.go_back()
    page.get_by_role("link", name="Compare candidates on this version").click()
    page.wait_for_load_state()
    shoot(page, out, "review-compare")
    page.context.close()


def new_invite(browser: object, server: LiveServer) -> str:
    """An interview on Warm-up for ada@example.com, created by the interviewer; its invite link."""
    page = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "interviewer")
    page.get_by_label("Candidate email").fill("ada@example.com")
    warm_up = page.locator("#scenario_version_id option", has_text="Warm-up").first.get_attribute("value")
    page.get_by_label("Challenge").select_option(warm_up)
    page.get_by_role("button", name="Create interview").click()
    invite_url = str(page.get_by_label("Invite link").input_value())
    page.context.close()
    return invite_url


def invites(browser: object, server: LiveServer, out: Path) -> None:
    """An interview from the Copy button to the lobby, and a candidate who ends early (no grading)."""
    page = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[attr-defined]
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    sign_in(page, server, "interviewer")
    page.get_by_label("Candidate email").fill("grace@example.com")
    # The challenge whose solution the candidate pastes below (the list's first is a pipeline-v1 one,
    # whose model.py is read-only).
    norm_and_gate = page.locator("#scenario_version_id option", has_text="Flat gates").first.get_attribute("value")
    page.get_by_label("Challenge").select_option(norm_and_gate)
    page.get_by_role("button", name="Create interview").click()
    page.get_by_role("button", name="Copy").wait_for()
    shoot(page, out, "interviewer-dashboard")
    page.get_by_role("button", name="Copy").click()
    page.get_by_text("Copied.").wait_for()
    page.locator(".alert-success").screenshot(path=str(out / "interviewer-invite-copied.png"))
    print("wrote interviewer-invite-copied.png")
    invite_url = page.get_by_label("Invite link").input_value()
    page.context.close()
    candidate_context = browser.new_context(viewport=VIEWPORT)  # type: ignore[attr-defined]
    candidate_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    candidate = candidate_context.new_page()
    candidate.goto(invite_url)
    shoot(candidate, out, "invite")
    candidate.get_by_label("New password").fill("screenshot-password")
    candidate.get_by_label("Repeat the password").fill("screenshot-password")
    candidate.get_by_role("button", name="Set password and continue").click()
    candidate.wait_for_url("**/lobby")
    shoot(candidate, out, "interview-lobby")
    candidate.get_by_role("button", name="Start the interview").click()
    candidate.wait_for_url("**/workspace")
    interview_id = candidate.url.split("/interviews/")[1].split("/")[0]
    # A pasted copy of the solution's model.py: the paste carries text only the solution has.
    solution = (ROOT / "app" / "scenarios_builtin" / "norm-and-gate" / "solution" / "model.py").read_text()
    candidate.get_by_label("Editor: model.py").click()
    candidate.keyboard.press("Control+A")
    candidate.evaluate("text => navigator.clipboard.writeText(text)", solution)
    with candidate.expect_response(lambda response: "/events" in response.url):
        candidate.keyboard.press("Control+V")
    candidate.once("dialog", lambda dialog: dialog.accept())
    candidate.get_by_role("button", name="End interview").click()
    candidate.locator(".alert-ended").wait_for()
    candidate.screenshot(path=str(out / "interview-ended.png"))  # the top of the page: the banner and "Ended"
    print("wrote interview-ended.png")
    candidate.context.close()
    page = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "interviewer")
    page.goto(f"{server.url}/interviewer/interviews/{interview_id}")
    page.locator("ul.signals").screenshot(path=str(out / "review-signals.png"))
    print("wrote review-signals.png")
    page.context.close()


def fork_draft(page: object, server: LiveServer, source: str, slug: str, title: str) -> None:
    """Create the draft `slug` from version 1 of the published `source`, as an admin does on the list page."""
    page.goto(f"{server.url}/admin/scenarios")  # type: ignore[attr-defined]
    page.get_by_label("Slug").fill(slug)  # type: ignore[attr-defined]
    page.get_by_label("Title").fill(title)  # type: ignore[attr-defined]
    page.get_by_label("Start from").select_option(label=f"Fork {source} v1 (published)")  # type: ignore[attr-defined]
    page.get_by_role("button", name="Create draft").click()  # type: ignore[attr-defined]
    page.wait_for_url(f"{server.url}/admin/scenarios/{slug}/versions/1/edit")  # type: ignore[attr-defined]


def authoring(browser: object, server: LiveServer, out: Path) -> None:
    """The admin's scenario list, a validated version with its matrix, a fork's editor, audit and coaching."""
    page = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "admin")
    page.goto(f"{server.url}/admin/scenarios")
    # Validations through the authoring API (a published version has no Validate button): the list says
    # "validating" while they run. leaky-mask's matrix may already be there from a grading.
    token = page.locator("input[name=csrf_token]").first.input_value()
    for slug in ("cache-drift", "leaky-mask"):
        page.request.post(f"{server.url}/api/admin/scenarios/{slug}/versions/1/validate",
                          headers={"X-CSRF-Token": token})
    page.reload()
    shoot(page, out, "admin-scenarios")
    page.goto(f"{server.url}/admin/scenarios/leaky-mask/versions/1")
    page.get_by_role("heading", name="Bug × test matrix").wait_for(timeout=600_000)
    shoot(page, out, "admin-version")
    fork_draft(page, server, "leaky-mask", "leakier-mask", "The Leakier Mask")
    shoot(page, out, "admin-edit")
    for path, name in (("/admin/scenarios/leakier-mask/versions/1/bugs/new", "admin-new-bug"),
                       ("/admin/audit", "admin-audit"), ("/admin/coaching", "admin-coaching")):
        page.goto(f"{server.url}{path}")
        shoot(page, out, name)
    # A llama-v1 draft is offered llama-v1 templates; a template fills in the edit at its line.
    fork_draft(page, server, "norm-and-gate", "norm-and-gate-2", "Norm and Gate, again")
    page.goto(f"{server.url}/admin/scenarios/norm-and-gate-2/versions/1/bugs/new?kind=rope-ignores-offset")
    shoot(page, out, "admin-new-bug-llama")
    # Bugs that share all their tests: the version page warns, and Publish asks first.
    page.goto(f"{server.url}/admin/scenarios/cache-drift/versions/1")
    page.get_by_role("heading", name="Bug × test matrix").wait_for(timeout=900_000)
    shoot(page, out, "admin-version-shared-tests")
    page.context.close()


def authoring_pipeline(browser: object, server: LiveServer, out: Path) -> None:
    """A pipeline-v1 draft offered a template over several lines: the clip moved past the optimizer's step."""
    page = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[attr-defined]
    sign_in(page, server, "admin")
    fork_draft(page, server, "padded-truths", "padded-truths-2", "Padded Truths, again")
    page.goto(f"{server.url}/admin/scenarios/padded-truths-2/versions/1/bugs/new?kind=clip-wrong-place")
    page.get_by_text("The clip-wrong-place template changed train.py line").wait_for()
    shoot(page, out, "admin-new-bug-pipeline")
    path = out / "admin-new-bug-pipeline-readonly.png"  # model.py, the scenario's own, read-only
    page.get_by_text("model.py is read-only").scroll_into_view_if_needed()
    page.screenshot(path=str(path))  # type: ignore[attr-defined]
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    # The moved line itself, in the train.py editor (a viewport shot: the editors draw only what is in view).
    page.get_by_text("Editor: train.py (copy of the solution)").scroll_into_view_if_needed()
    moved = page.locator(".cm-line", has_text="clip_grad_norm_(model.parameters(), grad_clip)")
    for _ in range(40):  # scroll down until the editor has drawn the line
        if moved.count():
            break
        page.mouse.wheel(0, 400)
        page.wait_for_timeout(100)
    moved.last.evaluate("line => line.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(300)
    path = out / "admin-new-bug-pipeline-edit.png"
    page.screenshot(path=str(path))  # type: ignore[attr-defined]
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    page.context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--only", choices=["workspace-layout", "workspace-cache", "workspace-phone", "workspace",
                                           "pipeline", "invites", "authoring", "authoring-pipeline", "interview"],
                        help="take just these screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    # References are computed by the first grading of each version, not all before serving.
    with (tempfile.TemporaryDirectory(prefix="dojo-shots-") as tmp,
          live_server(Path(tmp) / "data", WARM_REFERENCES="0") as server):
        print(f"app running at {server.url}")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            if args.only == "workspace-layout":
                workspace_layout(browser, server, args.out)
                browser.close()
                return 0
            if args.only == "workspace-cache":
                workspace_cache(browser, server, args.out)
                browser.close()
                return 0
            if args.only == "workspace-phone":
                workspace_phone(browser, server, args.out)
                browser.close()
                return 0
            if args.only == "workspace":
                workspace(browser, server, args.out)
                browser.close()
                return 0
            if args.only == "pipeline":
                workspace_pipeline(browser, server, args.out)
                browser.close()
                return 0
            if args.only == "authoring-pipeline":
                authoring_pipeline(browser, server, args.out)
                browser.close()
                return 0
            if args.only in ("invites", "authoring"):
                (invites if args.only == "invites" else authoring)(browser, server, args.out)
                browser.close()
                return 0
            if args.only == "interview":
                interview(browser, server, new_invite(browser, server), args.out)
                browser.close()
                return 0
            page = browser.new_context(viewport=VIEWPORT).new_page()
            page.goto(f"{server.url}/sign-in")
            shoot(page, args.out, "sign-in")

            sign_in(page, server, "interviewer")
            page.get_by_label("Candidate email").fill("ada@example.com")
            warm_up = page.locator("#scenario_version_id option", has_text="Warm-up").first.get_attribute("value")
            page.get_by_label("Challenge").select_option(warm_up)
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
            page.context.close()
            workspace_phone(browser, server, args.out)

            workspace(browser, server, args.out)
            workspace_layout(browser, server, args.out)
            workspace_cache(browser, server, args.out)
            workspace_pipeline(browser, server, args.out)
            interview(browser, server, invite_url, args.out)
            invites(browser, server, args.out)
            authoring(browser, server, args.out)
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
