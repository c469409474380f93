"""Wait for the machine to go quiet before a measurement that other work would disturb.

After a batch of gradings the local pool starts a fresh standby sandbox per slot (a Python that
imports torch, about a CPU-second each): the web figures are of the web process, so they are
measured once that work is done, not while it shares the two cores.

A quiet machine can still be a slow one: on a shared host the same Python loop has been seen to take
up to twice as long from one minute to the next, with no steal time reported. `python_loop_ms` times
a fixed loop, so a report can show how fast the host was when the web load ran.
"""

from __future__ import annotations

import statistics
import time


def _busy_and_total() -> tuple[int, int]:
    """The machine's busy and total CPU ticks since boot, from /proc/stat's first line."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    total = sum(fields[:8])  # up to steal; guest time is counted in user already
    return total - idle, total


def wait_until_quiet(*, busy_below: float = 0.15, window: float = 0.5, timeout: float = 30.0) -> float:
    """Seconds waited until one `window` saw the CPUs busy less than `busy_below` of the time
    (at most `timeout`: a machine that never goes quiet is measured as it is)."""
    started = time.monotonic()
    busy, total = _busy_and_total()
    while time.monotonic() - started < timeout:
        time.sleep(window)
        busy_now, total_now = _busy_and_total()
        share = (busy_now - busy) / max(1, total_now - total)
        busy, total = busy_now, total_now
        if share < busy_below:
            break
    return time.monotonic() - started


def python_loop_ms(*, iterations: int = 1_000_000, repeats: int = 5) -> float:
    """Median milliseconds of a fixed pure-Python loop: the host's speed right now, for the report."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        total = 0
        for value in range(iterations):
            total += value
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)
