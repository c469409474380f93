#!/usr/bin/env bash
# Set everything up on a fresh Debian/Ubuntu machine and start the app on the embedded default:
# SQLite in ./var, local grading workers in the sandbox, the built-in scenarios.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh "bwrap:bubblewrap"
.venv/bin/dojo migrate
.venv/bin/dojo first-admin
exec .venv/bin/dojo serve --host "${DOJO_HOST:-127.0.0.1}" --port "${DOJO_PORT:-8000}"
