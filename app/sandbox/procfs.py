"""Reading /proc/<pid>/status: the one place the sandbox looks at the host's process table."""

from __future__ import annotations

import os
from collections.abc import Iterator


def process_statuses() -> Iterator[tuple[int, dict[str, str]]]:
    """(pid, status fields) of every live process; ones that vanish while being read are skipped."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as status:
                yield int(entry), dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:
            continue


def real_uid(fields: dict[str, str]) -> int | None:
    """The real uid in a status table, or None when it is missing."""
    first = fields.get("Uid", "").split()[:1]
    return int(first[0]) if first else None
