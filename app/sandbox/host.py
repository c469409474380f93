"""Where this host keeps bubblewrap and the dedicated sandbox uids (read from the settings at each use)."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.core.settings import live_settings

DEFAULT_BWRAP = "/usr/bin/bwrap"


def sandbox_uid_base() -> int:
    """First sandbox uid (DOJO_SANDBOX_UID_BASE, default 64000): when the service runs as root, sandboxed
    processes run as uid base + slot instead; nothing else may use the range."""
    return live_settings().dojo_sandbox_uid_base


def bwrap_path() -> str:
    """Path of the bubblewrap binary (DOJO_BWRAP overrides the one found on PATH, else the default)."""
    return live_settings().dojo_bwrap or shutil.which("bwrap") or DEFAULT_BWRAP


def slot_state_dir() -> Path:
    """Where the locks of the sandbox uids live (DOJO_SANDBOX_STATE_DIR)."""
    return live_settings().dojo_sandbox_state_dir
