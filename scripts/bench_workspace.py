"""Workspace figures: Submit click to verdict on screen against `dojo grade` of the same files, the JavaScript
and CSS a challenge page transfers, and the server time to render it.

Starts its own `dojo serve` (SQLite, local pool, bubblewrap) and drives Debian's Chromium.
Usage: .venv/bin/python scripts/bench_workspace.py [--repeat 3] [--renders 50] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from web.live_server import LiveServer, launch_chromium, live_server, sign_in_as  # noqa: E402

SLUG = "leaky-mask"
SOLUTION = ROOT / "app" / "scenarios_builtin" / SLUG / "solution"


def submit_to_verdict(page: object, server: LiveServer) -> float:
    """Seconds from the Submit click to Passed on screen (the files are already the solution)."""
    page.goto(f"{server.url}/challenges/{SLUG}")  # type: ignore[attr-defined]
    page.wait_for_load_state("networkidle")  # type: ignore[attr-defined]
    submit = page.get_by_role("button", name="Submit")  # type: ignore[attr-defined]
    verdict = page.get_by_role("region", name="Results").locator(".verdict-label")  # type: ignore[attr-defined]
    before = page.locator("#results-body").get_attribute("data-attempt")  # type: ignore[attr-defined]
    started = time.perf_counter()
    submit.click()
    page.wait_for_function(  # type: ignore[attr-defined]
        "(before) => { const body = document.querySelector('#results-body');"
        " return body && body.dataset.attempt && body.dataset.attempt !== before"
        " && ['Passed', 'Failed', 'Error'].includes(body.dataset.status); }", arg=before, timeout=600_000)
    seconds = time.perf_counter() - started
    assert verdict.inner_text().strip() == "Passed", verdict.inner_text()
    return seconds


def put_solution(page: object) -> None:
    """Type the solution into the editors once (as a candidate would paste it)."""
    for name in ("model.py", "data.py"):
        page.get_by_role("tab", name=name).click()  # type: ignore[attr-defined]
        page.get_by_label(f"Editor: {name}").click()  # type: ignore[attr-defined]
        page.keyboard.press("Control+A")  # type: ignore[attr-defined]
        page.keyboard.press("Delete")  # type: ignore[attr-defined]
        page.keyboard.insert_text((SOLUTION / name).read_text())  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#save-status').textContent.startsWith('Saved')")  # type: ignore[attr-defined]


def dojo_grade_seconds(server: LiveServer) -> float:
    """`dojo grade` of the same files in the same data directory (reference cached), one process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "app.cli", "grade", SLUG, str(SOLUTION)], cwd=ROOT,
                          env=server.env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stdout + done.stderr
    return seconds


def page_assets(page: object, server: LiveServer) -> dict[str, int]:
    """Bytes of JavaScript and CSS the challenge page loads (as transferred: no compression is applied)."""
    sizes: dict[str, int] = {"script": 0, "stylesheet": 0}

    def count(response: object) -> None:
        kind = response.request.resource_type  # type: ignore[attr-defined]
        if kind in sizes and 200 <= response.status < 300:  # type: ignore[attr-defined]
            sizes[kind] += len(response.body())  # type: ignore[attr-defined]

    # A fresh context with the session's cookies: nothing comes from the browser cache.
    context = page.context.browser.new_context()  # type: ignore[attr-defined]
    context.add_cookies(page.context.cookies())  # type: ignore[attr-defined]
    fresh = context.new_page()
    fresh.on("response", count)
    fresh.goto(f"{server.url}/challenges/{SLUG}")
    fresh.wait_for_load_state("networkidle")
    context.close()
    return sizes


def render_times(page: object, server: LiveServer, count: int) -> list[float]:
    """Server time of GET /challenges/<slug> as the signed-in candidate, from a client on the same host."""
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())  # type: ignore[attr-defined]
    times = []
    for _ in range(count):
        request = urllib.request.Request(f"{server.url}/challenges/{SLUG}", headers={"Cookie": cookies})
        started = time.perf_counter()
        with urllib.request.urlopen(request) as response:
            response.read()
        times.append(time.perf_counter() - started)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--renders", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    # The benchmark's first submit computes the reference it needs; background warm-up of the other
    # built-ins would only compete for the CPU while measuring.
    os.environ["WARM_REFERENCES"] = "0"
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-workspace-") as tmp, live_server(Path(tmp) / "data") as server, \
            launch_chromium("/usr/bin/chromium") as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        sign_in_as(page, server, server.users["candidate"], server.password)
        page.goto(f"{server.url}/challenges/{SLUG}")
        put_solution(page)
        warm = submit_to_verdict(page, server)  # computes the reference: not counted
        pipeline = [submit_to_verdict(page, server) for _ in range(args.repeat)]
        grade = [dojo_grade_seconds(server) for _ in range(args.repeat)]
        assets = page_assets(page, server)
        render_times(page, server, 5)  # warm the template cache
        renders = render_times(page, server, args.renders)
    figures = {
        "load_before": round(load, 2),
        "first_submit_with_reference_s": round(warm, 2),
        "submit_to_verdict_median_s": round(statistics.median(pipeline), 3),
        "dojo_grade_median_s": round(statistics.median(grade), 3),
        "ratio": round(statistics.median(pipeline) / statistics.median(grade), 3),
        "js_bytes": assets["script"], "css_bytes": assets["stylesheet"],
        "js_css_kb": round((assets["script"] + assets["stylesheet"]) / 1024, 1),
        "render_median_ms": round(statistics.median(renders) * 1000, 1),
        "render_p95_ms": round(sorted(renders)[int(0.95 * (len(renders) - 1))] * 1000, 1),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
