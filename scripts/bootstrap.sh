#!/usr/bin/env bash
# Shared set-up for scripts/serve.sh and scripts/test.sh: system packages, virtualenv, pinned packages.
# Idempotent: a second run only checks. Usage: scripts/bootstrap.sh [system-package ...]
set -euo pipefail
cd "$(dirname "$0")/.."

need_python() {
  for py in python3.13 python3.12 python3.11 python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$py"; return 0
    fi
  done
  echo "error: Python 3.11 or newer is required (apt-get install python3 python3-venv)" >&2
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

PY=$(need_python)
install_system_packages "$@"
if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  install_system_packages "false:python3-venv"
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# Reinstall only when pyproject.toml changed since the last successful install.
stamp=.venv/.dojo-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "Installing Python packages into .venv (torch is pinned to the 2.13.0 CPU build)"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e '.[dev]'
  echo "$want" > "$stamp"
fi
