"""Pages watching gradings: many workspaces polling their Results panel while gradings run, and the
latency that other requests see meanwhile on the same web process.

Each watcher is one candidate's page with a submission of its own in the queue (a candidate grades one at
a time), polling GET /challenges/{slug}/attempts/{id}/panel as static/js/workspace-panels.js does:

- "every-400ms": the page before conditional polling (htmx `every 400ms`): a full panel each time;
- "backoff": the script's backoff without If-None-Match: 400 ms, x1.5 while the fragment is unchanged
  (compared as text, as the script does) up to 3 s, back to 400 ms on a change; a page whose attempt waits
  behind others (data-ahead > 0) polls every 2 s or more, growing up to a second per attempt ahead and at most
  10 s, and a change of its "N ahead of yours" alone does not bring it back to 400 ms;
- "conditional": the same with If-None-Match, the script as shipped: an unchanged panel is a 304.

A page stops polling when its fragment says so (data-poll="no": the verdict and its tips are in).
The watchers run in a child process on asyncio (one keep-alive connection each), so that their own
Python work does not share a GIL with the clients being measured: a few "other" clients (threads,
app.bench.web_load) request GET /api/attempts/{id} and the signed-in dashboard with a short pause
between requests, and their latencies are the figure. Watchers sign in with bearer tokens (issued in bulk, no password
hashing): a page's cookie session costs the server the same one indexed read per request.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.bench.http import BenchHTTPError, Client
from app.bench.pipeline import FINISHED, percentile, submit
from app.bench.web_load import web_load
from app.core.paths import ROOT_DIR

# The page as shipped first; the heavier earlier ways after it (each starts once the server has drained).
MODES = ("conditional", "backoff", "every-400ms")
MIN_DELAY_S, MAX_DELAY_S, GROWTH = 0.4, 3.0, 1.5  # workspace-panels.js: MIN_DELAY_MS, MAX_DELAY_MS, GROWTH
# WAITING_MIN_DELAY_MS, WAITING_MAX_DELAY_MS, WAITING_DELAY_PER_AHEAD_MS
WAITING_MIN_DELAY_S, WAITING_MAX_DELAY_S, WAITING_DELAY_PER_AHEAD_S = 2.0, 10.0, 1.0
WATCHER_EMAIL = "bench-watcher-{n}@example.com"
_POLL_ATTR = re.compile(rb'data-poll="(yes|no)"')
_AHEAD_ATTR = re.compile(rb'data-ahead="(\d+)"')


@dataclass(frozen=True)
class WatchOptions:
    watchers: int = 300
    ramp_seconds: float = 10.0  # the watchers' delays settle (400 ms grows to 3 s in about 8 s)
    seconds: float = 30.0  # the measured window, per mode
    other_clients: int = 4
    other_pause_seconds: float = 0.1  # between one other client's requests
    modes: tuple[str, ...] = MODES


@dataclass
class ModeResult:
    mode: str
    other_p95_ms: float
    other_p50_ms: float
    other_requests: int
    other_p95_ms_by_path: dict[str, float]
    other_errors: int
    polls: int  # the watchers' requests in the measured window
    not_modified: int  # of which 304
    poll_errors: int
    polling_at_end: int  # watchers still polling when the window closed
    finished: int  # watchers that stopped: their grading's verdict and tips were in
    load: list[float] = field(default_factory=list)
    drain_wait_s: float = 0.0  # waited before the mode for the previous one's queued requests


@dataclass(frozen=True)
class WatchersFigure:
    """The figure: the other clients' p95 while the watchers poll conditionally (the headline; None when
    that mode was not measured), each mode's result, and the details the report keeps."""

    p95_ms: float | None
    modes: dict[str, ModeResult]
    seconds: float  # the measured window of each mode
    details: dict[str, object]

    def polls_per_s(self, result: ModeResult) -> float:
        return round(result.polls / self.seconds, 1)


def create_watchers(count: int, *, env: dict[str, str]) -> list[str]:
    """`count` candidates (created if missing) and a fresh bearer token for each, in one process."""
    code = (
        "import json, sys\n"
        "from app.auth.tokens import issue_token\n"
        "from app.core.db import get_engine, new_session\n"
        "from app.core.migrate import upgrade_to_head\n"
        "from app.users.service import create_user, get_by_email\n"
        "upgrade_to_head(get_engine())\n"
        "tokens = []\n"
        "with new_session() as session:\n"
        "    for email in sys.argv[1:]:\n"
        "        user = get_by_email(session=session, email=email) or create_user(\n"
        "            session=session, email=email, password=None, role='candidate')\n"
        "        tokens.append(issue_token(session=session, user=user, name='bench'))\n"
        "    session.commit()\n"
        "print(json.dumps(tokens))\n"
    )
    emails = [WATCHER_EMAIL.format(n=n) for n in range(count)]
    done = subprocess.run([sys.executable, "-c", code, *emails], cwd=ROOT_DIR, env=env, check=True,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


# ---- The watchers (child process) ----


def ahead(body: bytes | None) -> int:
    """How many attempts wait ahead of the fragment's (workspace-panels.js: ahead)."""
    found = _AHEAD_ATTR.search(body) if body else None
    return int(found.group(1)) if found else 0


def bounds(body: bytes | None) -> tuple[float, float]:
    """The least and most delay between polls of this fragment (workspace-panels.js: bounds)."""
    waiting = ahead(body)
    if not waiting:
        return MIN_DELAY_S, MAX_DELAY_S
    most = min(WAITING_MAX_DELAY_S, waiting * WAITING_DELAY_PER_AHEAD_S)
    return WAITING_MIN_DELAY_S, max(WAITING_MIN_DELAY_S, most)


def grown(delay: float, body: bytes | None) -> float:
    """The next delay while the panel shows no progress of its own (workspace-panels.js: grow)."""
    least, most = bounds(body)
    return min(most, round(max(least, delay) * GROWTH, 3))


def next_delay(delay: float, shown: bytes | None, incoming: bytes) -> float:
    """The delay after a changed fragment: back to the fastest, unless only its queue position moved."""
    return grown(delay, incoming) if ahead(shown) and ahead(incoming) else MIN_DELAY_S


def scheduled(delay: float, shown: bytes | None) -> float:
    """How long the page waits before its next poll (workspace-panels.js: schedule, for a visible page)."""
    return max(bounds(shown)[0], delay)


async def _http_get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes
                    ) -> tuple[int, dict[str, str], bytes]:  # fmt: skip
    """One GET on a keep-alive connection: status, headers (lower-case names), body."""
    writer.write(head)
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    headers: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", ""):
        raise BenchHTTPError("a chunked answer: this client reads Content-Length bodies only")
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length and status not in (204, 304) else b""
    return status, headers, body


_DROPPED = (OSError, asyncio.IncompleteReadError, ValueError, IndexError)


class _Connection:
    """A page's keep-alive connection, opened again as a browser does: when the server has closed it while idle
    (uvicorn does after 5 s), and once more when a request on the reused connection met that close."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, head: bytes) -> tuple[int, dict[str, str], bytes]:
        fresh = self.reader is None or self.reader.at_eof()
        if fresh:
            await self._open()
        try:
            return await self._send(head)
        except _DROPPED:
            if fresh:
                raise
            await self._open()
            return await self._send(head)

    async def _send(self, head: bytes) -> tuple[int, dict[str, str], bytes]:
        assert self.reader is not None and self.writer is not None
        return await _http_get(self.reader, self.writer, head)

    async def _open(self) -> None:
        self.close()
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class _Tally:
    polls: int = 0
    not_modified: int = 0
    errors: int = 0
    polling: int = 0
    finished: int = 0  # pages that stopped because their panel said so (verdict and tips in)


async def _watch(port: int, token: str, path: str, mode: str, window: tuple[float, float], tally: _Tally) -> None:
    """One page polling its panel until its fragment says stop or the run ends (workspace-panels.js)."""
    connection = _Connection(port)
    cookies: dict[str, str] = {}
    delay, etag, last_text = MIN_DELAY_S, None, None
    await asyncio.sleep(random.uniform(0, MIN_DELAY_S))  # pages opened at different moments
    tally.polling += 1
    try:
        while time.monotonic() < window[1]:
            await asyncio.sleep(delay if mode == "every-400ms" else scheduled(delay, last_text))
            lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", f"Authorization: Bearer {token}", "HX-Request: true"]
            if cookies:
                lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items()))
            if mode == "conditional" and etag:
                lines.append(f"If-None-Match: {etag}")
            try:
                status, headers, body = await connection.get(("\r\n".join(lines) + "\r\n\r\n").encode())
            except _DROPPED:
                tally.errors += 1
                connection.close()
                delay = MAX_DELAY_S
                continue
            if window[0] <= time.monotonic() <= window[1]:
                tally.polls += 1
                tally.not_modified += status == 304
            if "set-cookie" in headers:
                key, _, rest = headers["set-cookie"].partition("=")
                cookies[key.strip()] = rest.split(";", 1)[0]
            if mode == "every-400ms":
                if status != 200 or _POLL_ATTR.search(body) is None:
                    return
                if b'data-poll="no"' in body:
                    tally.finished += 1
                    return
                continue
            if status == 200:
                etag = headers.get("etag")  # the script keeps the ETag of every full answer, changed or not
            if status == 304 or (status == 200 and body == last_text):
                delay = grown(delay, last_text)
                continue
            if status != 200:
                if status >= 500:
                    tally.errors += 1
                    delay = MAX_DELAY_S
                    continue
                return
            last_text, delay = body, next_delay(delay, last_text, body)
            if b'data-poll="no"' in body:
                tally.finished += 1
                return  # the verdict and its tips are in: the page stops polling
    finally:
        tally.polling -= 1
        connection.close()


def _watchers_main(port: int, tokens: list[str], paths: list[str], mode: str, window: tuple[float, float],
                   out: Any) -> None:  # fmt: skip
    tally = _Tally()

    async def run_all() -> None:
        pages = (_watch(port, token, path, mode, window, tally) for token, path in zip(tokens, paths, strict=True))
        outcomes = await asyncio.gather(*pages, return_exceptions=True)
        tally.errors += sum(isinstance(outcome, BaseException) for outcome in outcomes)

    async def count_at_end() -> int:
        await asyncio.sleep(max(0.0, window[1] - time.monotonic()))
        return tally.polling

    async def main() -> int:
        ending = asyncio.ensure_future(count_at_end())
        await run_all()
        return await ending

    still = asyncio.run(main())
    out.send({"polls": tally.polls, "not_modified": tally.not_modified, "errors": tally.errors, "polling": still,
              "finished": tally.finished})
    out.close()


# ---- The other clients and one measured mode (parent process) ----


def measure_mode(mode: str, *, port: int, tokens: list[str], panel_paths: list[str], other_paths: dict[str, str],
                 cookies: dict[str, str], token: str, options: WatchOptions) -> ModeResult:  # fmt: skip
    """Watchers in `mode` for ramp + window seconds; the other clients' latencies in the window."""
    import os

    start = time.monotonic()
    window = (start + options.ramp_seconds, start + options.ramp_seconds + options.seconds)
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(
        target=_watchers_main, args=(port, tokens, panel_paths, mode, window, send), daemon=True)
    child.start()
    send.close()
    others = web_load(host="127.0.0.1", ports=[port], cookies=cookies, token=token, paths=other_paths,
                      clients=options.other_clients, seconds=options.seconds, pause=options.other_pause_seconds,
                      ramp=window[0] - time.monotonic())  # fmt: skip
    latencies = others.latencies_ms
    load = [round(x, 2) for x in os.getloadavg()]
    tally = receive.recv() if receive.poll(120) else {"polls": 0, "not_modified": 0, "errors": -1, "polling": 0,
                                                      "finished": 0}
    child.join(timeout=30)
    every = [v for values in latencies.values() for v in values]
    return ModeResult(
        mode=mode, other_p95_ms=round(others.p95_ms(), 1), other_p50_ms=round(percentile(every, 0.5), 1),
        other_requests=len(every), other_errors=others.errors,
        other_p95_ms_by_path={label: round(percentile(v, 0.95), 1) for label, v in latencies.items() if v},
        polls=tally["polls"], not_modified=tally["not_modified"], poll_errors=tally["errors"],
        polling_at_end=tally["polling"], finished=tally["finished"], load=load,
    )  # fmt: skip


def one_poll_ms(port: int, token: str, path: str, *, count: int = 30) -> dict[str, float]:
    """Median milliseconds of one panel poll on its own: the full fragment, and the 304 of a conditional one."""
    client = Client("127.0.0.1", port, token=token)
    try:
        full = [client.get(path, extra={"HX-Request": "true"}) for _ in range(count)]
        etag = {"HX-Request": "true", "If-None-Match": full[-1].headers.get("etag", "")}
        cheap = [client.get(path, expect=(200, 304), extra=etag) for _ in range(count)]
    finally:
        client.close()
    return {"full_200": round(percentile([r.seconds * 1000 for r in full], 0.5), 2),
            "conditional": round(percentile([r.seconds * 1000 for r in cheap], 0.5), 2),
            "conditional_304_share": round(sum(r.status == 304 for r in cheap) / count, 2)}


def wait_drained(port: int, *, fast_ms: float = 20.0, timeout: float = 120.0) -> float:
    """Seconds until /healthz answers within `fast_ms` three times in a row: the requests of the previous
    mode that the server had queued are answered, so they do not count against the next one."""
    started = time.monotonic()
    client = Client("127.0.0.1", port, timeout=timeout)
    try:
        in_a_row = 0
        while in_a_row < 3 and time.monotonic() - started < timeout:
            in_a_row = in_a_row + 1 if client.get("/healthz", expect=(200, 503)).seconds * 1000 < fast_ms else 0
            time.sleep(0.1)
    finally:
        client.close()
    return time.monotonic() - started


def submit_gradings(port: int, tokens: list[str], *, scenario: str, files: dict[str, str]) -> list[int]:
    """Each watcher's candidate submits once: the gradings their pages watch (most wait in the queue)."""
    ids = []
    for token in tokens:
        client = Client("127.0.0.1", port, token=token)
        try:
            ids.append(submit(client, scenario=scenario, files=files))
        finally:
            client.close()
    return ids


def withdraw(port: int, tokens: list[str], attempt_ids: list[int], *, timeout: float = 300.0) -> int:
    """Cancel the submissions still queued and wait for the running ones: a data directory used again
    starts with no leftover gradings. The number cancelled."""
    cancelled, running = 0, []
    for token, attempt_id in zip(tokens, attempt_ids, strict=True):
        client = Client("127.0.0.1", port, token=token)
        try:
            answer = client.request("POST", f"/api/attempts/{attempt_id}/cancel", expect=(200, 409))
            cancelled += answer.status == 200
            if answer.status == 409:
                running.append((token, attempt_id))
        finally:
            client.close()
    deadline = time.monotonic() + timeout
    for token, attempt_id in running:
        client = Client("127.0.0.1", port, token=token)
        try:
            while (client.get(f"/api/attempts/{attempt_id}").json()["status"] not in FINISHED
                   and time.monotonic() < deadline):  # fmt: skip
                time.sleep(0.5)
        finally:
            client.close()
    return cancelled


def watchers_figure(*, port: int, env: dict[str, str], scenario: str, slug: str, files: dict[str, str],
                    cookies: dict[str, str], token: str, other_paths: dict[str, str], options: WatchOptions,
                    say: Callable[[str], None]) -> WatchersFigure:  # fmt: skip
    """The figure on a running server: `options.watchers` pages watching their gradings, each mode in turn."""
    say(f"watchers: {options.watchers} candidates with a bearer token each")
    tokens = create_watchers(options.watchers, env=env)
    attempt_ids = submit_gradings(port, tokens, scenario=scenario, files=files)
    panel_paths = [f"/challenges/{slug}/attempts/{attempt_id}/panel" for attempt_id in attempt_ids]
    results = []
    try:
        single = one_poll_ms(port, tokens[-1], panel_paths[-1])  # the last in the queue: it waits throughout
        for mode in options.modes:
            drained = wait_drained(port)
            say(f"watchers: {options.watchers} pages polling ({mode}) for {options.ramp_seconds:g} + "
                f"{options.seconds:g} s, {options.other_clients} other clients measured")
            result = measure_mode(mode, port=port, tokens=tokens, panel_paths=panel_paths, other_paths=other_paths,
                                  cookies=cookies, token=token, options=options)  # fmt: skip
            say(f"watchers ({mode}): other requests p95 {result.other_p95_ms} ms; {result.polls} polls "
                f"({result.not_modified} 304), {result.polling_at_end} pages still polling")
            result.drain_wait_s = round(drained, 1)
            results.append(result)
    finally:
        say("watchers: withdrawing the queued submissions, waiting for the running ones")
        cancelled = withdraw(port, tokens, attempt_ids)
    by_mode = {r.mode: r for r in results}
    after = by_mode.get("conditional")
    return WatchersFigure(
        p95_ms=after.other_p95_ms if after else None, modes=by_mode, seconds=options.seconds,
        details={
            "watchers": options.watchers, "seconds": options.seconds, "ramp_seconds": options.ramp_seconds,
            "other_clients": options.other_clients, "other_paths": list(other_paths), "cancelled_after": cancelled,
            "one_poll_median_ms": single,
            "modes": {r.mode: {"other_p95_ms": r.other_p95_ms, "other_p50_ms": r.other_p50_ms,
                               "other_requests": r.other_requests, "other_errors": r.other_errors,
                               "other_p95_ms_by_path": r.other_p95_ms_by_path,
                               "polls_per_s": round(r.polls / options.seconds, 1), "not_modified": r.not_modified,
                               "poll_errors": r.poll_errors, "polling_at_end": r.polling_at_end,
                               "finished": r.finished, "drain_wait_s": r.drain_wait_s,
                               "load_after": r.load} for r in results},
        },
    )  # fmt: skip
