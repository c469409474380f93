#!/usr/bin/env bash
# Rebuild the committed editor bundles (static/vendor/codemirror/) and the vendored axe-core
# (tests/vendor/axe-core/) from the exact versions in frontend/package-lock.json, and rewrite their
# section of static/vendor/VERSIONS.md. Needs Node 20+ and npm; serving and testing the app do not.
set -euo pipefail
cd "$(dirname "$0")/../frontend"
command -v npm >/dev/null 2>&1 || { echo "error: Node.js and npm are needed to rebuild the bundle" >&2; exit 1; }
# --ignore-scripts: no package runs code at install time; esbuild's platform binary comes as a package.
npm ci --ignore-scripts --no-audit --no-fund
node build.mjs
