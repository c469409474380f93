"""Time the rule coach on one attempt, as the worker runs it after grading: read the attempt, its challenge's
history and the scenario, write the tips, store them (SQLite in a temporary directory).

    .venv/bin/python scripts/bench_coaching.py [--runs 200]

The attempts are real gradings of leaky-mask (tests/coaching/fixtures/builtin_gradings.json) with the product
owner's three sample notes, each with ten earlier attempts on the same challenge. The first coaching of a
scenario version also parses its package (cached afterwards); it is reported separately.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
_TMP = Path(tempfile.mkdtemp(prefix="dojo-bench-coaching-"))
os.environ["DOJO_DATA_DIR"] = str(_TMP)
os.environ["DATABASE_URL"] = f"sqlite:///{_TMP / 'bench.sqlite3'}"
os.environ.setdefault("SECRET_KEY", "bench-secret-key-" + "x" * 40)
os.environ["COACH_LLM_URL"] = ""  # the rules: the model coach's time is the model's

import app.models  # noqa: E402, F401
from app.attempts.models import Attempt  # noqa: E402
from app.coaching import service  # noqa: E402
from app.core.db import get_engine, new_session, utcnow  # noqa: E402
from app.core.migrate import upgrade_to_head  # noqa: E402
from app.scenarios.service import get_published, sync_builtin_scenarios  # noqa: E402
from app.users.service import create_user  # noqa: E402

FIXTURE = ROOT / "tests" / "coaching" / "fixtures" / "builtin_gradings.json"
NOTES = {
    "find": "The label shift one I caught fast because I've been burned by that before.",
    "verify": "Ran it on a tiny dataset just to sanity check.",
    "approach": "My approach was basically: isolate each module and test it independently before touching the "
                "full forward pass.",
}
HISTORY = 10


def setup(attempts: int) -> list[int]:
    """A candidate with `attempts` coached submits on leaky-mask, each after HISTORY earlier attempts."""
    upgrade_to_head(get_engine())
    gradings = json.loads(FIXTURE.read_text(encoding="utf-8"))["leaky-mask"]
    results = [gradings[name]["result"] for name in ("starter", "mutant:labels-not-shifted", "partial")]
    ids = []
    with new_session() as session:
        sync_builtin_scenarios(session=session)
        version = get_published(session=session, slug="leaky-mask")
        assert version is not None
        start = utcnow() - timedelta(days=1)
        for n in range(attempts):
            user = create_user(session=session, email=f"bench-{n}@example.com", password=None, role="candidate")
            for i in range(HISTORY + 1):
                kind = "submit" if i % 3 != 1 else "run"
                row = Attempt(user_id=user.id, scenario_version_id=version.id, kind=kind, status="failed",
                              files={}, notes=NOTES, result=results[i % len(results)],
                              created_at=start + timedelta(minutes=i))
                session.add(row)
                session.flush()
            ids.append(row.id)
        session.commit()
    return ids


def coach(attempt_id: int) -> tuple[float, float]:
    """(wall, CPU) milliseconds of coaching one attempt; on a busy machine the CPU time is the steadier."""
    started, cpu = time.perf_counter(), time.thread_time()
    with new_session() as session:
        service.coach_attempt(session=session, attempt_id=attempt_id)
        session.commit()
    return (time.perf_counter() - started) * 1000, (time.thread_time() - cpu) * 1000


def summary(label: str, values: list[float]) -> str:
    values = sorted(values)
    return (f"  {label}: min {values[0]:.1f} ms, median {statistics.median(values):.1f} ms, "
            f"p95 {values[int(0.95 * (len(values) - 1))]:.1f} ms, max {values[-1]:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    ids = setup(min(args.runs, 50))
    first, _first_cpu = coach(ids[0])
    runs = [coach(ids[n % len(ids)]) for n in range(args.runs)]
    with new_session() as session:
        tips = service.tips_of(session=session, attempt_id=ids[0])
    load = os.getloadavg()
    print(f"coaching one attempt (read + rules + store, SQLite, {len(tips)} tips, {HISTORY} earlier attempts)")
    print(f"  first (parses the scenario package): {first:.1f} ms")
    print(summary(f"wall time over {args.runs} runs", [wall for wall, _cpu in runs]))
    print(summary(f"CPU time over {args.runs} runs", [cpu for _wall, cpu in runs]))
    print(f"  load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
