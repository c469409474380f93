"""Graded submissions per minute with the local pool (real sandboxed gradings of a built-in scenario).

Usage: .venv/bin/python scripts/bench_throughput.py [--scenario warm-up] [--count 8] [--kind submit]
       [--concurrency 0] [--files starter|solution]

Runs in a throw-away data directory and SQLite database. The scenario's reference measurements are
computed first and not timed (the server does that once per scenario version).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="warm-up")
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--kind", choices=["run", "submit"], default="submit")
    parser.add_argument("--concurrency", type=int, default=0, help="0 = one per CPU core")
    parser.add_argument("--files", choices=["starter", "solution"], default="starter")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="dojo-bench-"))
    os.environ["DOJO_DATA_DIR"] = str(workdir)
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ.pop("BROKER_URL", None)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")

    from sqlalchemy import select

    import app.models  # noqa: F401
    from app.attempts.models import Attempt
    from app.core.db import get_engine, new_session
    from app.core.migrate import upgrade_to_head
    from app.dispatch.local_pool import LocalPool
    from app.engine.package import ScenarioPackage
    from app.grading.reference import ensure_reference
    from app.sandbox import get_runner
    from app.scenarios.service import get_published, sync_builtin_scenarios
    from app.users.service import create_user

    upgrade_to_head(get_engine())
    with new_session() as session:
        sync_builtin_scenarios(session=session)
        session.commit()
        version = get_published(session=session, slug=args.scenario)
        if version is None:
            print(f"unknown scenario {args.scenario!r}", file=sys.stderr)
            return 2
        package = ScenarioPackage.from_dict(version.content)
        files = package.starter_files if args.files == "starter" else package.solution_files
        runner = get_runner()
        print(f"runner: {runner.name}; scenario {args.scenario}; {args.count} x {args.kind} of the {args.files}")
        started = time.monotonic()
        ensure_reference(package=package, runner=runner)
        print(f"reference measurements (once per version, not timed): {time.monotonic() - started:.1f} s")
        user = create_user(session=session, email="bench@example.com", password=None, role="candidate")
        attempts = [
            Attempt(user_id=user.id, scenario_version_id=version.id, kind=args.kind, status="queued", files=dict(files))
            for _ in range(args.count)
        ]
        session.add_all(attempts)
        session.commit()
        ids = [a.id for a in attempts]

    pool = LocalPool(concurrency=args.concurrency or None)
    started = time.monotonic()
    pool.start()  # start-up recovery dispatches the queued attempts
    while True:
        with new_session() as session:
            rows = session.scalars(select(Attempt).where(Attempt.id.in_(ids))).all()
        if all(r.status in ("passed", "failed", "error") for r in rows):
            break
        time.sleep(0.2)
    elapsed = time.monotonic() - started
    pool.stop()

    walls = [float((r.result or {}).get("wall_seconds") or 0) for r in rows]
    statuses = {s: sum(1 for r in rows if r.status == s) for s in ("passed", "failed", "error")}
    print(f"cores: {os.cpu_count()}; pool concurrency: {pool.concurrency}")
    print(f"finished: {len(rows)} in {elapsed:.1f} s  ->  {len(rows) / elapsed * 60:.1f} graded submissions/minute")
    print(f"statuses: {statuses}")
    print(f"grading wall time per attempt: mean {statistics.mean(walls):.2f} s, "
          f"min {min(walls):.2f} s, max {max(walls):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
