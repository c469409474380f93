"""`dojo bench --only follow`: how fast a keystroke reaches a following interviewer, and what following costs.

Interviews are set up in the server's database (an interviewer, candidates, started interviews); each
candidate signs in through the real form and types into model.py as a person does, in bursts (a key
every KEY_INTERVAL_S for BURST_S, then a pause of PAUSE_S), saving as the workspace page does in an
interview (800 ms after the last key, and at most 450 ms after the oldest unsaved one) with the page's
`live` report: each key's CodeMirror change set and its age. The interviewer follows every interview
on GET /api/interviews/{id}/live; a key's latency is from the moment it was typed to the moment a
`draft` event holding it arrives. Meanwhile OTHER_CLIENTS other clients request a candidate's
dashboard and /api/scenarios without pause: their p95 is the cost of following.

Figures:
- follow_p95_ms: keystroke to the follower, 50 typing candidates followed on the embedded default
  (one `dojo serve`, SQLite, events fanned out in the process); bound 1000 ms;
- follow_other_p95_ms: the other clients' p95 meanwhile; bound 100 ms;
- follow_redis_p95_ms: the same latency with two `dojo serve` processes sharing the database and a
  Redis (LIVE_REDIS_URL): candidates save on one, the interviewer follows on the other; bound 1500 ms.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.bench import server
from app.bench.http import Client
from app.bench.report import BenchReport, measured_now
from app.bench.watchers import WatchersFigure
from app.core.paths import ROOT_DIR

SCENARIO = "warm-up"
FILE = "model.py"
MARK = "# typing: "
KEY_INTERVAL_S = 0.2  # five characters a second
BURST_S = (2.0, 5.0)
PAUSE_S = (1.0, 3.0)
SAVE_AFTER_LAST_KEY_S = 0.8  # the page's AUTOSAVE_DELAY_MS
SAVE_AFTER_FIRST_KEY_S = 0.45  # the page's INTERVIEW_MAX_WAIT_MS
OTHER_CLIENTS = 4
LETTERS = "abcdefghijklmnopqrstuvwxyz"

SETUP = """
import json, sys
from datetime import timedelta
from app.auth.tokens import issue_token
from app.core.db import get_engine, new_session, utcnow
from app.core.migrate import upgrade_to_head
from app.interviews import service
from app.scenarios import service as scenarios
from app.users.service import create_user, get_by_email
upgrade_to_head(get_engine())
password, slug, count, prefix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
out = {"interviews": [], "candidates": []}
with new_session() as session:
    version = scenarios.get_published(session=session, slug=slug)
    email = prefix + "-interviewer@example.com"
    interviewer = get_by_email(session=session, email=email) or create_user(
        session=session, email=email, password=password, role="interviewer")
    out["interviewer_token"] = issue_token(session=session, user=interviewer)
    out["interviewer"] = email
    other = prefix + "-other@example.com"
    get_by_email(session=session, email=other) or create_user(session=session, email=other, password=password,
                                                              role="candidate")
    out["other"] = other
    for n in range(count):
        email = f"{prefix}-candidate-{n}@example.com"
        candidate = get_by_email(session=session, email=email) or create_user(
            session=session, email=email, password=password, role="candidate")
        interview, token = service.create_interview(
            session=session, interviewer=interviewer, candidate_email=email, scenario_version=version,
            time_limit_minutes=480, expires_in=timedelta(days=1))
        service.redeem_invite(session=session, token=token, password=None, signed_in=candidate)
        interview.started_at = utcnow()
        session.flush()
        out["interviews"].append(interview.id)
        out["candidates"].append(email)
    session.commit()
from app.attempts.package_info import public_package
starter = public_package(version).starter_files["model.py"]
out["starter"] = starter if starter.endswith(chr(10)) else starter + chr(10)
print(json.dumps(out))
"""


@dataclass
class Setup:
    interviewer: str
    interviewer_token: str
    other: str
    interviews: list[int]
    candidates: list[str]
    starter: str  # model.py as the candidates start


def set_up(env: dict[str, str], count: int, prefix: str) -> Setup:
    """An interviewer, `count` candidates and their started interviews, in the server's database."""
    done = subprocess.run([sys.executable, "-c", SETUP, server.PASSWORD, SCENARIO, str(count), prefix],
                          cwd=ROOT_DIR, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"setting up the interviews failed:\n{done.stderr[-3000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return Setup(**data)


@dataclass
class EventStream:
    """A reader of one server-sent event stream on its own thread; events land in `events` with arrival times."""

    port: int
    path: str
    headers: dict[str, str]
    events: list[tuple[float, str, str, dict[str, object]]] = field(default_factory=list)  # (time, id, kind, data)
    on_event: Callable[[float, str, str, dict[str, object]], None] | None = None
    closed: threading.Event = field(default_factory=threading.Event)
    status: int | None = None

    def __post_init__(self) -> None:
        self._conn = http.client.HTTPConnection(server.HOST, self.port, timeout=120)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._ready = threading.Event()

    def start(self, wait: float = 10.0) -> EventStream:
        self._thread.start()
        self._ready.wait(wait)
        return self

    def _run(self) -> None:
        try:
            self._conn.request("GET", self.path, headers={"Accept": "text/event-stream", **self.headers})
            response = self._conn.getresponse()
            self.status = response.status
            self._ready.set()
            if response.status != 200:
                return
            event_id, kind, data = "", "message", ""
            while True:
                line = response.readline()
                if not line:
                    return
                text = line.decode().rstrip("\r\n")
                if text.startswith("id:"):
                    event_id = text[3:].strip()
                elif text.startswith("event:"):
                    kind = text[6:].strip()
                elif text.startswith("data:"):
                    data = text[5:].strip()
                elif text == "" and data:
                    now = time.monotonic()
                    parsed = json.loads(data)
                    self.events.append((now, event_id, kind, parsed))
                    if self.on_event is not None:
                        self.on_event(now, event_id, kind, parsed)
                    event_id, kind, data = "", "message", ""
        except (OSError, http.client.HTTPException, ValueError, AttributeError):  # AttributeError: closed meanwhile
            return
        finally:
            self._ready.set()
            self.closed.set()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self._conn.sock is not None:
                self._conn.sock.shutdown(2)
        self._conn.close()
        self._thread.join(timeout=10)


def csrf_of(client: Client, path: str) -> str:
    page = client.get(path).body.decode()
    marker = 'name="csrf_token" value="'
    start = page.index(marker) + len(marker)
    return page[start:page.index('"', start)]


@dataclass
class Typist:
    """One candidate typing into model.py and saving as the interview workspace does."""

    client: Client
    csrf: str
    interview_id: int
    base: str  # model.py before the typing line
    typed: str = ""
    key_times: list[float] = field(default_factory=list)  # monotonic time of each key
    pending: list[tuple[float, Any]] = field(default_factory=list)  # (time, change set)
    failures: int = 0
    save_ms: list[float] = field(default_factory=list)  # each save request's time (one per save taken)

    def text(self) -> str:
        return f"{self.base}{MARK}{self.typed}\n"

    def key(self) -> None:
        position = len(self.base) + len(MARK) + len(self.typed)
        char = LETTERS[len(self.typed) % len(LETTERS)]
        after = len(self.text()) - position
        self.typed += char
        now = time.monotonic()
        self.key_times.append(now)
        self.pending.append((now, [position, [0, char], after]))

    def save(self) -> None:
        now = time.monotonic()
        changes = [[int((now - t) * 1000), change, "input.type"] for t, change in self.pending]
        body = {"files": {FILE: self.text()}, "live": {
            "file": FILE, "cursor_line": self.text().count("\n"), "focused": True, "active": True,
            "changes": {FILE: changes}}}
        self.pending = []
        try:
            response = self.client.request("POST", f"/challenges/{SCENARIO}/draft?interview={self.interview_id}",
                                           body=json.dumps(body).encode(), content_type="application/json",
                                           extra={"X-CSRF-Token": self.csrf})
            self.save_ms.append(response.seconds * 1000)
        except Exception:  # noqa: BLE001 (a failed save is counted; the typing goes on)
            self.failures += 1

    def run(self, until: float, rng: random.Random) -> None:
        while time.monotonic() < until:
            burst_end = time.monotonic() + rng.uniform(*BURST_S)
            next_key = time.monotonic()
            while time.monotonic() < min(burst_end, until):
                now = time.monotonic()
                if now >= next_key:
                    self.key()
                    next_key = now + KEY_INTERVAL_S
                if self.pending and (now - self.pending[0][0] >= SAVE_AFTER_FIRST_KEY_S):
                    self.save()
                time.sleep(max(0.0, min(next_key, (self.pending[0][0] + SAVE_AFTER_FIRST_KEY_S)
                                        if self.pending else next_key) - time.monotonic()))
            pause_end = time.monotonic() + rng.uniform(*PAUSE_S)
            if self.pending:
                # The page's timer: 800 ms after the last key, but never later than 450 ms after the oldest
                # unsaved one (static/js/workspace.js, scheduleSave).
                save_at = min(self.pending[-1][0] + SAVE_AFTER_LAST_KEY_S,
                              self.pending[0][0] + SAVE_AFTER_FIRST_KEY_S)
                time.sleep(max(0.0, save_at - time.monotonic()))
                self.save()
            time.sleep(max(0.0, pause_end - time.monotonic()))


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))]


@dataclass
class FollowResult:
    latencies_ms: list[float]
    other_ms: list[float]
    save_ms: list[float]
    keys: int
    keys_seen: int
    saves: int
    failed_saves: int
    seconds: float

    def summary(self) -> dict[str, object]:
        return {"keys": self.keys, "keys_seen": self.keys_seen, "saves": self.saves, "failed_saves": self.failed_saves,
                "saves_per_s": round(self.saves / self.seconds, 1),
                **_spread("latency", self.latencies_ms), **_spread("save", self.save_ms),
                "other_requests": len(self.other_ms), "other_p50_ms": _round(percentile(self.other_ms, 0.5)),
                "other_p95_ms": _round(percentile(self.other_ms, 0.95))}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _spread(name: str, values: list[float]) -> dict[str, float | None]:
    """p50, p95 and the largest of `values` (ms), keyed `{name}_p50_ms` and so on."""
    return {f"{name}_p50_ms": _round(percentile(values, 0.5)), f"{name}_p95_ms": _round(percentile(values, 0.95)),
            f"{name}_max_ms": _round(max(values) if values else None)}


def measure(*, follow_port: int, type_ports: list[int], setup: Setup, seconds: float, others: bool,
            say: Callable[[str], None]) -> FollowResult:
    """Sign the candidates in, follow every interview, type for `seconds`, and collect the latencies."""
    typists: list[Typist] = []
    for n, (email, interview_id) in enumerate(zip(setup.candidates, setup.interviews, strict=True)):
        client = Client(server.HOST, type_ports[n % len(type_ports)])
        client.sign_in_page(email, server.PASSWORD)
        page = f"/interviews/{interview_id}/workspace"
        csrf = csrf_of(client, page)
        typists.append(Typist(client=client, csrf=csrf, interview_id=interview_id, base=setup.starter))
    say(f"{len(typists)} candidates signed in; following {len(setup.interviews)} interviews")
    latencies: list[float] = []
    seen = [0] * len(typists)
    lock = threading.Lock()

    def on_event_for(index: int) -> Callable[[float, str, str, dict[str, object]], None]:
        def on_event(now: float, _id: str, kind: str, data: dict[str, object]) -> None:
            if kind != "draft" or data.get("file") != FILE:
                return
            text = str(data.get("text", ""))
            at = text.rfind(MARK)
            if at < 0:
                return
            count = len(text[at + len(MARK):].split("\n", 1)[0])
            typist = typists[index]
            with lock:
                for k in range(seen[index], min(count, len(typist.key_times))):
                    latencies.append((now - typist.key_times[k]) * 1000)
                seen[index] = max(seen[index], count)
        return on_event

    streams = [EventStream(follow_port, f"/api/interviews/{interview_id}/live",
                           {"Authorization": f"Bearer {setup.interviewer_token}"}, on_event=on_event_for(n)).start()
               for n, interview_id in enumerate(setup.interviews)]
    bad = [s.status for s in streams if s.status != 200]
    if bad:
        raise RuntimeError(f"follow streams refused: {bad[:5]}")
    other_ms: list[float] = []
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=t.run, args=(until, random.Random(n)), daemon=True)
               for n, t in enumerate(typists)]
    if others:
        other_clients = [Client(server.HOST, follow_port) for _ in range(OTHER_CLIENTS)]
        dashboard = other_clients[0].sign_in_page(setup.other, server.PASSWORD)
        for client in other_clients[1:]:
            client.cookies = dict(other_clients[0].cookies)

        def other_client(n: int) -> None:
            client = other_clients[n]
            paths = [dashboard, "/api/scenarios"]
            k = n
            while time.monotonic() < until:
                response = client.get(paths[k % len(paths)])
                other_ms.append(response.seconds * 1000)
                k += 1
                time.sleep(0.05)
            client.close()

        threads += [threading.Thread(target=other_client, args=(n,), daemon=True) for n in range(OTHER_CLIENTS)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    time.sleep(2.0)  # the last saves' events
    for stream in streams:
        stream.close()
    for typist in typists:
        typist.client.close()
    return FollowResult(latencies_ms=latencies, other_ms=other_ms, save_ms=[ms for t in typists for ms in t.save_ms],
                        keys=sum(len(t.key_times) for t in typists),
                        keys_seen=sum(seen), saves=sum(len(t.save_ms) for t in typists),
                        failed_saves=sum(t.failures for t in typists), seconds=time.monotonic() - started)


@contextlib.contextmanager
def serving(env: dict[str, str], log: Path) -> Iterator[server.BenchServer]:
    serve = server.BenchServer(env=env, log=log)
    try:
        serve.start_and_wait()
        yield serve
    finally:
        serve.stop()


@dataclass(frozen=True)
class FollowOptions:
    interviews: int = 50
    redis_interviews: int = 20
    seconds: float = 30.0


def run_follow_only(options: FollowOptions, *, say: Callable[[str], None]) -> BenchReport:
    from app.bench.services import private_redis

    work = Path(tempfile.mkdtemp(prefix="dojo-bench-follow-"))
    load_before = [round(x, 2) for x in os.getloadavg()]
    env = server.bench_env(work / "embedded", WARM_REFERENCES="0", WARM_SANDBOXES="0")
    with serving(env, work / "embedded.log") as serve:
        setup = set_up(env, options.interviews, "embedded")
        say(f"embedded: {options.interviews} interviews followed, candidates typing for {options.seconds:.0f} s")
        embedded = measure(follow_port=serve.port, type_ports=[serve.port], setup=setup, seconds=options.seconds,
                           others=True, say=say)
    say(f"embedded: {embedded.summary()}")
    with private_redis() as redis_url:
        env2 = server.bench_env(work / "scaled", WARM_REFERENCES="0", WARM_SANDBOXES="0", LIVE_REDIS_URL=redis_url)
        with serving(env2, work / "scaled-a.log") as first, serving(env2, work / "scaled-b.log") as second:
            setup2 = set_up(env2, options.redis_interviews, "scaled")
            say(f"two processes and Redis: {options.redis_interviews} interviews, typing on one, "
                "following on the other")
            scaled = measure(follow_port=first.port, type_ports=[second.port], setup=setup2, seconds=options.seconds,
                             others=False, say=say)
    say(f"two processes: {scaled.summary()}")
    details: dict[str, object] = {
        "embedded": embedded.summary(), "two_processes_redis": scaled.summary(), "seconds": options.seconds,
        "bounds": {"follow_p95_ms": 1000, "follow_other_p95_ms": 100, "follow_redis_p95_ms": 1500},
        "typing": {"key_interval_s": KEY_INTERVAL_S, "burst_s": BURST_S, "pause_s": PAUSE_S,
                   "save_after_last_key_s": SAVE_AFTER_LAST_KEY_S, "save_after_first_key_s": SAVE_AFTER_FIRST_KEY_S},
        "cpus": os.cpu_count(), "load_before": load_before, "load_after": [round(x, 2) for x in os.getloadavg()],
        "work_dir": str(work),
    }
    figures: dict[str, float | None] = {
        "follow_p95_ms": _round(percentile(embedded.latencies_ms, 0.95)),
        "follow_other_p95_ms": _round(percentile(embedded.other_ms, 0.95)),
        "follow_redis_p95_ms": _round(percentile(scaled.latencies_ms, 0.95)),
    }
    return BenchReport(figures=figures, watchers=WatchersFigure(None, {}, 0.0, {}), details=details,
                       measured_at=measured_now())
