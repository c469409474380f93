"""Soak: N real submissions (default 200) mixed with web traffic through a private PostgreSQL and
Redis, one `dojo serve` and two `dojo worker`s; one worker is killed and restarted and the broker is
restarted (empty) on the way. Prints the figures; exit 1 unless every attempt finished exactly once.

    .venv/bin/python scripts/soak.py [--submissions 200] [--timeout 7200]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
# Where the tiny scenario's reference measurements are computed once and kept between runs.
os.environ.setdefault("DOJO_DATA_DIR", os.path.join(tempfile.gettempdir(), "dojo-soak-reference"))
os.environ.setdefault("WARM_REFERENCES", "0")

from ops.soak import run_soak  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=7200)
    args = parser.parse_args()
    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    data = Path(tempfile.mkdtemp(prefix="dojo-soak-")) / "data"
    figures = run_soak(data, submissions=args.submissions, timeout=args.timeout)
    print(figures.report())
    print("load after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"logs in {data}")
    finished = sum(figures.statuses.values())
    once = sorted(figures.stored_per_attempt.values()) == [1] * figures.accepted
    return 0 if finished == figures.accepted == args.submissions and once else 1


if __name__ == "__main__":
    sys.exit(main())
