"""Writing a scenario package back out: scenario.toml, brief.md and solution/ in a zip that import reads."""

from __future__ import annotations

import io
import zipfile
from typing import TypedDict

import tomli_w

from app.engine.package import ScenarioPackage

ZIP_DATE = (2026, 1, 1, 0, 0, 0)  # a fixed timestamp: the same package always zips to the same bytes


class BugTable(TypedDict):
    """One [[bugs]] table of scenario.toml."""

    id: str
    kind: str
    component: str
    title: str
    hints: list[str]
    explanation: dict[str, str]  # expected, detect, fix
    edits: list[dict[str, str]]  # Edit.to_dict(): file, old, new


class ScenarioDocument(TypedDict):
    """scenario.toml, in the order it is written."""

    slug: str
    title: str
    difficulty: str
    summary: str
    interface: str
    time_limit_minutes: int
    files: list[str]
    training: dict[str, float]
    questions: list[dict[str, str]]
    bugs: list[BugTable]


def scenario_toml(package: ScenarioPackage) -> str:
    """The package's scenario.toml; bugs are planted by exact-text edits (multi-line strings stay readable)."""
    doc: ScenarioDocument = {
        "slug": package.slug, "title": package.title, "difficulty": package.difficulty, "summary": package.summary,
        "interface": package.interface, "time_limit_minutes": package.time_limit_minutes,
        "files": list(package.files), "training": dict(package.training),
        "questions": [dict(q) for q in package.questions],
        "bugs": [{"id": b.id, "kind": b.kind, "component": b.component, "title": b.title, "hints": list(b.hints),
                  "explanation": dict(b.explanation), "edits": [e.to_dict() for e in b.edits]}
                 for b in package.bugs],
    }
    return tomli_w.dumps(doc, multiline_strings=True)


def package_files(package: ScenarioPackage) -> dict[str, str]:
    """Relative path -> text of every file in the package folder."""
    files = {"scenario.toml": scenario_toml(package), "brief.md": package.brief}
    files.update({f"solution/{name}": text for name, text in sorted(package.solution_files.items())})
    return files


def package_zip(package: ScenarioPackage) -> bytes:
    """The package as a zip with one top folder named after its slug."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, text in package_files(package).items():
            info = zipfile.ZipInfo(f"{package.slug}/{path}", date_time=ZIP_DATE)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()
