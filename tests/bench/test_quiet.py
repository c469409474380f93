"""The benchmark's wait for a quiet machine: it waits while the CPUs are busy, and stops at the first quiet window."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from app.bench import quiet


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_busy_cpus_make_it_wait_until_the_timeout() -> None:
    spinners = [multiprocessing.Process(target=_spin, args=(4.0,)) for _ in range(multiprocessing.cpu_count())]
    for spinner in spinners:
        spinner.start()
    try:
        time.sleep(0.3)
        waited = quiet.wait_until_quiet(window=0.3, timeout=1.5)
    finally:
        for spinner in spinners:
            spinner.terminate()
            spinner.join()
    assert waited >= 1.5


def test_it_returns_after_the_first_quiet_window(monkeypatch: pytest.MonkeyPatch) -> None:
    # (busy, total) ticks: 90 % busy, then 95 %, then 5 %.
    readings = iter([(0, 0), (90, 100), (185, 200), (190, 300), (1000, 1000)])
    monkeypatch.setattr(quiet, "_busy_and_total", lambda: next(readings))
    monkeypatch.setattr(quiet.time, "sleep", lambda _seconds: None)
    quiet.wait_until_quiet(window=0.01, timeout=60)
    assert next(readings) == (1000, 1000)  # three windows read, the fourth never


def test_the_loop_timing_grows_with_the_work() -> None:
    short = quiet.python_loop_ms(iterations=200_000)
    long = quiet.python_loop_ms(iterations=2_000_000)
    assert 0 < short < long
