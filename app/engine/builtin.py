"""The scenarios that ship with the app (app/scenarios_builtin/<slug>/)."""

from __future__ import annotations

from pathlib import Path

from app.engine.errors import PackageError
from app.engine.package import ScenarioPackage, load_package

BUILTIN_DIR = Path(__file__).resolve().parent.parent / "scenarios_builtin"
# Each built-in's validation report (mutation matrix and the solution's measurements), shipped with it.
SHIPPED_REPORTS_DIR = BUILTIN_DIR / "_reports"


def builtin_dirs() -> list[Path]:
    """Package directories, sorted by slug."""
    if not BUILTIN_DIR.is_dir():
        return []
    return sorted(p for p in BUILTIN_DIR.iterdir() if (p / "scenario.toml").is_file())


def shipped_report_path(slug: str) -> Path:
    """Where the app ships the validation report of the built-in `slug`."""
    return SHIPPED_REPORTS_DIR / f"{slug}.json"


def builtin_packages() -> list[ScenarioPackage]:
    """Load every built-in package (raises PackageError on the first broken one)."""
    return [load_package(p) for p in builtin_dirs()]


def find_builtin(slug: str) -> ScenarioPackage | None:
    """The built-in package with this slug, or None."""
    for path in builtin_dirs():
        if path.name == slug:
            return load_package(path)
    for pkg in builtin_packages():
        if pkg.slug == slug:
            return pkg
    return None


def resolve_package(target: str) -> ScenarioPackage:
    """A path to a package directory or zip, else a built-in slug (as the command line names one)."""
    path = Path(target)
    if path.exists():
        return load_package(path)
    pkg = find_builtin(target)
    if pkg is None:
        raise PackageError(f"{target}: no such scenario (neither a package path nor a built-in slug)")
    return pkg
