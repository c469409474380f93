#!/usr/bin/env bash
# Set everything up on a fresh Debian/Ubuntu machine (packages from requirements-dev.lock) and run the
# test suite, linters included. Tests needing PostgreSQL, Redis, bubblewrap or Chromium skip with a reason
# when those are missing, unless DOJO_REQUIRE_SERVICES=1 (CI), which makes them fail instead.
#
# Usage: scripts/test.sh [--fast] [pytest arguments ...]
#   --fast   the subset for editing pages and APIs: no training runs or other long runs (marker slow),
#            no browser, no sandbox, no app started in processes of its own (marker processes); a couple
#            of minutes instead of the whole suite.
# The tests run in parallel, one pytest-xdist worker per core; files stay whole on one worker (their
# module fixtures, live servers among them, start once) and are handed out in the order tests/conftest.py
# gives them, files with long tests first (--no-loadscope-reorder: xdist would otherwise hand out the
# files with the most tests first, leaving a long file of one test, such as a burst of real gradings, to
# run alone at the end). `-n 0` among the arguments runs in one process.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --dev "bwrap:bubblewrap" "chromium:chromium"
# Bytecode caches on, whatever the calling shell says: every test process (the workers, each live server,
# CLI command and Celery worker they start) would otherwise compile the app's modules again, and pytest
# rewrite every test module's asserts again (about 3 s of each worker's collection).
unset PYTHONDONTWRITEBYTECODE

select=()
if [ "${1:-}" = "--fast" ]; then
  shift
  select=(-m "not slow and not browser and not bwrap and not processes")
fi
.venv/bin/ruff check app tests migrations scripts
.venv/bin/mypy
.venv/bin/lint-imports --no-cache   # the layer contracts in pyproject.toml (docs/architecture.md)
exec .venv/bin/pytest -n auto --dist loadfile --no-loadscope-reorder "${select[@]}" "$@"
