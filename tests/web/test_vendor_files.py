"""The committed third-party browser files are exactly the ones static/vendor/VERSIONS.md records.

No Node needed: the editor bundles are built by scripts/build_frontend.sh and committed; this checks
their hashes, sizes, pinned versions and licences against the record and the npm lockfile.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ROOT / "static" / "vendor" / "VERSIONS.md"
FRONTEND = ROOT / "frontend"
SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _rows(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.startswith("|") and not line.startswith("|---")]


def _frontend_section() -> str:
    text = VERSIONS.read_text(encoding="utf-8")
    start, end = text.index("<!-- frontend:"), text.index("<!-- /frontend -->")
    return text[start:end]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_built_files_match_their_recorded_size_and_hash() -> None:
    files = [row for row in _rows(_frontend_section()) if len(row) == 3 and SHA256.match(row[2])]
    assert {row[0] for row in files} == {
        "static/vendor/codemirror/dojo-editor.min.js", "static/vendor/codemirror/dojo-editor-markdown.min.js",
        "tests/vendor/axe-core/axe.min.js",
    }
    for path, size, digest in files:
        assert (ROOT / path).stat().st_size == int(size), path
        assert _sha256(ROOT / path) == digest, f"{path} differs from VERSIONS.md (scripts/build_frontend.sh)"


def test_downloaded_files_match_their_recorded_hash() -> None:
    text = VERSIONS.read_text(encoding="utf-8")
    table = text[:text.index("<!-- frontend:")]
    checked = 0
    for package, _version, _licence, files, digest in (row for row in _rows(table) if len(row) == 5):
        if SHA256.match(digest):
            path = ROOT / "static" / "vendor" / files.split(" (")[0]
            assert _sha256(path) == digest, f"{path} ({package}) differs from VERSIONS.md"
            checked += 1
    assert checked >= 3


def test_recorded_versions_are_the_locked_ones_and_pinned_exactly() -> None:
    lock = json.loads((FRONTEND / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    manifest = json.loads((FRONTEND / "package.json").read_text(encoding="utf-8"))
    wanted = {**manifest["dependencies"], **manifest["devDependencies"]}
    for name, version in wanted.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} is not pinned exactly: {version}"
        assert lock[f"node_modules/{name}"]["version"] == version, name
    packages = [row for row in _rows(_frontend_section()) if len(row) == 4 and row[0] != "Package"]
    names = {package[0] for package in packages}
    assert {"@codemirror/view", "@codemirror/lang-python", "style-mod", "esbuild", "axe-core"} <= names
    licences = (ROOT / "static" / "vendor" / "codemirror" / "LICENSE").read_text(encoding="utf-8")
    for name, version, licence, bundles in packages:
        assert lock[f"node_modules/{name}"]["version"] == version, name
        if bundles.endswith(".min.js") and name != "axe-core":
            assert licence.startswith("MIT") and f"{name} {version} (MIT)" in licences, name
    assert (ROOT / "tests" / "vendor" / "axe-core" / "LICENSE").read_text().startswith("Mozilla Public License")


def test_editor_bundles_define_the_dojo_editor_global() -> None:
    for name in ("dojo-editor.min.js", "dojo-editor-markdown.min.js"):
        head = (ROOT / "static" / "vendor" / "codemirror" / name).read_text(encoding="utf-8")[:300]
        assert "var DojoEditor=" in head, name
