#!/usr/bin/env bash
# Shared set-up for scripts/serve.sh and scripts/test.sh: system packages, virtualenv, locked packages.
# Idempotent: a second run only checks; packages are reinstalled only when the lock changes.
# Usage: scripts/bootstrap.sh [--dev] [command:system-package ...]
#   --dev installs requirements-dev.lock (the app's lock plus the dev tools) instead of requirements.lock.
set -euo pipefail
cd "$(dirname "$0")/.."

lock=requirements.lock
if [ "${1:-}" = "--dev" ]; then
  lock=requirements-dev.lock
  shift
fi

need_python() {
  # The locks are compiled for CPython 3.11 (scripts/lock.sh): their torch wheel is a cp311 build.
  for py in python3.11 python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      echo "$py"; return 0
    fi
  done
  echo "error: Python 3.11 is required, the version requirements*.lock is compiled for (apt-get install python3 python3-venv on Debian 12)" >&2
  exit 1
}

install_system_packages() {
  # Each wanted package is given as "command:debian-package".
  local missing=()
  for pair in "$@"; do
    local cmd=${pair%%:*} pkg=${pair##*:}
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing system packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "error: missing system packages: ${missing[*]}" >&2
    echo "       install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
}

install_lock() {
  # uv (itself from requirements-setup.lock) installs a lock in about a third of pip's time on 2 cores:
  # it unpacks and byte-compiles in parallel, where pip does one file after another (44 s against 14 s
  # for the dev lock, most of it torch). uv reads no pip configuration, so the local wheel directories
  # pip is told of (where torch's CPU build lies) are passed on. If uv cannot do it, pip does.
  local links=() link
  for link in ${PIP_FIND_LINKS:-$(.venv/bin/python -m pip config get global.find-links 2>/dev/null || true)}; do
    links+=(--find-links "$link")
  done
  if .venv/bin/python -m pip install -q --require-hashes -r requirements-setup.lock \
     && .venv/bin/uv pip install -q --python .venv/bin/python --no-cache --compile-bytecode --require-hashes \
          "${links[@]}" -r "$1"; then
    return 0
  fi
  echo "uv could not install $1; installing it with pip" >&2
  .venv/bin/python -m pip install -q --require-hashes -r "$1"
}

PY=$(need_python)
install_system_packages "$@"
if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  install_system_packages "false:python3-venv"
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# The stamp names what was last installed: a lock and pyproject.toml (its entry points), by content.
stamp=.venv/.dojo-installed
installed_key() { cat "$1" pyproject.toml | sha256sum | cut -d' ' -f1; }
installed=$(cat "$stamp" 2>/dev/null || true)
want=$(installed_key "$lock")
# The dev lock holds every pin of the app's lock, so a dev install also serves.
if [ "$installed" != "$want" ] && ! { [ "$lock" = requirements.lock ] && [ "$installed" = "$(installed_key requirements-dev.lock)" ]; }; then
  echo "Installing Python packages into .venv from $lock (torch is the 2.13.0 CPU build)"
  # Every package and its hash come from the lock; the project itself is installed without resolving
  # anything more, built by the locked setuptools.
  install_lock "$lock"
  .venv/bin/python -m pip install -q --no-deps --no-build-isolation -e .
  echo "$want" > "$stamp"
fi
