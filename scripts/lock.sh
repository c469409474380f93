#!/usr/bin/env bash
# Regenerate the lock files from pyproject.toml with pip-tools:
#   requirements.lock      every package the app runs on (transitive ones included) and the build
#                          backend for the editable install, each with its sha256 hashes;
#   requirements-dev.lock  the same pins plus the dev tools (pytest, ruff, mypy, playwright, ...);
#   requirements-setup.lock  uv, which scripts/bootstrap.sh installs first and installs the others with.
# Run it after changing a dependency in pyproject.toml and commit pyproject.toml and the locks together.
# Arguments go to pip-compile, e.g. `scripts/lock.sh --upgrade-package celery` or `scripts/lock.sh --upgrade`.
#
# torch must resolve to the CPU build (2.13.0+cpu). This machine's pip configuration finds that wheel
# in /opt/wheels; elsewhere set TORCH_FIND_LINKS to a directory or page that holds it (for instance
# https://download.pytorch.org/whl/cpu/torch/). The run fails if the result would pull CUDA packages.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=python3.11   # the locks are for CPython 3.11 on Linux x86_64, like the Docker image
tools=${XDG_CACHE_HOME:-$HOME/.cache}/dojo-pip-tools
if [ ! -x "$tools/bin/pip-compile" ]; then
  "$PY" -m venv "$tools"
  "$tools/bin/pip" install -q pip-tools==7.6.2
fi

compile=("$tools/bin/pip-compile" -q --generate-hashes --reuse-hashes --allow-unsafe --strip-extras
  --all-build-deps --no-emit-index-url --no-emit-find-links)
[ -n "${TORCH_FIND_LINKS:-}" ] && compile+=(--find-links "$TORCH_FIND_LINKS")

"${compile[@]}" "$@" -o requirements.lock pyproject.toml
# The dev lock is constrained by the app's lock, so both install the very same versions.
"${compile[@]}" "$@" --extra dev -c requirements.lock -o requirements-dev.lock pyproject.toml

# uv's version is pinned here (bump it by editing the line), with the hash of every wheel of that release.
echo "uv==0.13.9" | "$tools/bin/pip-compile" -q --generate-hashes --reuse-hashes --no-emit-index-url \
  --no-emit-find-links -o requirements-setup.lock -

for lock in requirements.lock requirements-dev.lock; do
  if grep -q -E '^(nvidia-|triton==)' "$lock" || ! grep -q -E '^torch==[^ ]*\+cpu ' "$lock"; then
    echo "error: $lock does not pin the CPU build of torch (or pulls CUDA packages); see TORCH_FIND_LINKS above" >&2
    exit 1
  fi
done
echo "Wrote requirements.lock, requirements-dev.lock and requirements-setup.lock"
