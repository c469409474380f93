#!/usr/bin/env bash
# Set everything up on a fresh Debian/Ubuntu machine and run the whole test suite, linters included.
# Tests needing PostgreSQL, Redis, bubblewrap or Chromium skip with a reason when those are missing,
# unless DOJO_REQUIRE_SERVICES=1 (CI), which makes them fail instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --dev "bwrap:bubblewrap" "chromium:chromium"
.venv/bin/ruff check app tests migrations scripts
.venv/bin/mypy
exec .venv/bin/pytest "$@"
