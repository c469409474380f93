"""Reference measurements and the mutation matrix, computed once per scenario version and cached.

Built-in scenarios ship their reports (app/scenarios_builtin/_reports/<slug>.json, written by
`dojo scenarios validate --ship`): a fresh install grades them at once instead of spending minutes of
CPU on each matrix. A shipped report counts only for the package content and engine it was made by;
otherwise it is computed as any other.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from app.core.settings import get_settings, live_settings
from app.engine.builtin import shipped_report_path
from app.engine.interfaces import get_interface
from app.engine.measurements import Measurements
from app.engine.package import ScenarioPackage
from app.engine.validator import ValidationReport, validate_package
from app.sandbox.job import Runner

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def cache_path(package: ScenarioPackage) -> Path:
    """<REFERENCE_CACHE_DIR or DOJO_DATA_DIR/cache/reference>/<content_hash>-<engine fingerprint>.json"""
    configured = get_settings().reference_cache_dir
    folder = Path(configured) if configured else live_settings().dojo_data_dir / "cache" / "reference"
    return folder / f"{package.content_hash}-{get_interface(package.interface).engine_fingerprint()}.json"


def load_cached(package: ScenarioPackage) -> ValidationReport | None:
    """The cached validation report (with the solution's measurements), if present and readable: the
    cache's entry, else the report the app ships for this built-in's content and engine."""
    path = cache_path(package)
    try:
        return ValidationReport.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError):
        return load_shipped(package)


def load_shipped(package: ScenarioPackage) -> ValidationReport | None:
    """The shipped report of a built-in with this slug, when it was made from this very content by the
    running engine (an admin's package of the same slug has another content hash and never matches)."""
    try:
        report = ValidationReport.from_dict(json.loads(shipped_report_path(package.slug).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    current = report.content_hash == package.content_hash \
        and report.engine == get_interface(package.interface).engine_fingerprint()
    return report if current and report.reference is not None and report.complete else None


def ship(package: ScenarioPackage, report: ValidationReport) -> Path:
    """Write a built-in's complete report where the app ships it (`dojo scenarios validate --ship`)."""
    path = shipped_report_path(package.slug)
    _write_atomically(path, report.to_dict(), indent=1)
    path.chmod(0o644)  # a file of the repository, not a private cache entry
    return path


def store(package: ScenarioPackage, report: ValidationReport) -> None:
    _write_atomically(cache_path(package), report.to_dict())


def solution_path(package: ScenarioPackage) -> Path:
    """Beside the cache entry: the solution's measurements alone, for readers that need no matrix
    (`dojo check`)."""
    return cache_path(package).with_suffix(".solution.json")


def load_solution(package: ScenarioPackage) -> Measurements | None:
    """The solution's measurements: from the full cached report, else from the solution-only entry."""
    report = load_cached(package)
    if report is not None and report.reference is not None:
        return report.reference
    try:
        return Measurements.from_json(json.loads(solution_path(package).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def store_solution(package: ScenarioPackage, measurements: Measurements) -> None:
    """Keep the solution's measurements where load_solution reads them. A cache that cannot be written
    costs the next reader one more run, nothing else."""
    with suppress(OSError):
        _write_atomically(solution_path(package), measurements.to_json())


def _write_atomically(path: Path, document: object, *, indent: int | None = None) -> None:
    """Write atomically so a concurrent reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".ref-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(document, fh, indent=indent, sort_keys=indent is not None)
        if indent is not None:
            fh.write("\n")
    os.replace(tmp, path)


def ensure_reference(*, package: ScenarioPackage, runner: Runner) -> ValidationReport:
    """Cached report, or validate now (solution, starter, mutants) and cache it when the solution ran."""
    cached = load_cached(package)
    if cached is not None:
        return cached
    with _locks_guard:
        lock = _locks.setdefault(package.content_hash, threading.Lock())
    with lock, _process_lock(cache_path(package)):
        cached = load_cached(package)
        if cached is not None:
            return cached
        report = validate_package(package=package, runner=runner)
        if report.reference is not None:
            store(package, report)
        return report


@contextmanager
def _process_lock(path: Path) -> Iterator[None]:
    """An flock beside the cache entry: processes sharing the cache (workers, parallel test workers)
    compute a reference once; the others wait and read it. It frees itself if its holder dies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
