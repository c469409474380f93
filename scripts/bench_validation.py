"""Wall time of validating a scenario as a background job, with one and with two grading workers.

Usage: .venv/bin/python scripts/bench_validation.py [--scenario leaky-mask] [--workers 1 2]

Each run validates a fresh draft copy of the built-in (a four-bug scenario by default) through the
real job path: one task per sandboxed run (solution twice, starter, each mutant, masking pairs) on a
local pool of N threads, in a throw-away data directory and SQLite database. Prints the load too:
numbers taken while other work runs on the machine are noisy.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="leaky-mask")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="dojo-bench-validation-"))
    os.environ["DOJO_DATA_DIR"] = str(workdir)
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ.pop("BROKER_URL", None)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")

    import app.models  # noqa: F401
    from app.core.db import get_engine, new_session
    from app.core.migrate import upgrade_to_head
    from app.dispatch import dispatcher
    from app.dispatch.local_pool import LocalPool
    from app.engine.builtin import find_builtin
    from app.engine.package import ScenarioPackage
    from app.scenarios import authoring, validation
    from app.scenarios.job_models import ScenarioJob
    from app.startup import register_jobs

    upgrade_to_head(get_engine())
    register_jobs()
    source = find_builtin(args.scenario)
    if source is None:
        print(f"unknown scenario {args.scenario!r}", file=sys.stderr)
        return 2
    print(f"validating {args.scenario}: {len(source.bugs)} bugs; cpus={os.cpu_count()}")
    for workers in args.workers:
        data = {**source.to_dict(), "slug": f"bench-{uuid.uuid4().hex[:8]}"}
        with new_session() as session:
            version = authoring.save_package(session=session, package=ScenarioPackage.from_dict(data), user=None)
            session.commit()
        pool = LocalPool(concurrency=workers)
        pool.start()
        dispatcher._active = pool  # the pool this process dispatches to, as `dojo serve` would set it
        print(f"  load before: {_load()}")
        started = time.monotonic()
        with new_session() as session:
            job_id = validation.start_validation(session=session, version=version, user_id=None).id
            session.commit()
        while True:
            with new_session() as session:
                job = session.get(ScenarioJob, job_id)
                assert job is not None
                if job.status in ("done", "failed"):
                    break
            time.sleep(0.2)
        wall = time.monotonic() - started
        pool.stop()
        dispatcher._active = None
        print(f"  workers={workers}: {wall:6.1f} s wall for {job.total} sandboxed runs "
              f"({job.status}, valid={(job.summary or {}).get('valid')})")
        print(f"  load after:  {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
