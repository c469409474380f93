"""`dojo scenarios import PATH|ZIP [--publish]` and `dojo scenarios export SLUG [--version N] -o FILE`."""

from __future__ import annotations

from pathlib import Path

import pytest
from dispatch.conftest import app_db  # noqa: F401
from sqlalchemy import select

from app.cli import main
from app.core.db import new_session
from app.engine.package import load_package, load_zip
from app.scenarios.export import package_files
from app.scenarios.models import Scenario, ScenarioVersion
from scenarios.api_support import tiny_zip


def _versions(slug: str) -> list[tuple[int, str]]:
    with new_session() as session:
        return [(v.version, v.status) for v in session.scalars(
            select(ScenarioVersion).join(Scenario).where(Scenario.slug == slug).order_by(ScenarioVersion.version))]


def test_import_a_zip_and_a_folder_then_export_each_version(app_db: None, tmp_path: Path,  # noqa: F811
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    slug, data = tiny_zip()
    archive = tmp_path / "package.zip"
    archive.write_bytes(data)
    assert main(["scenarios", "import", str(archive)]) == 0
    assert f"Imported {slug} as draft version 1" in capsys.readouterr().out

    # The same package as a folder, with a new summary: the open draft is updated, not duplicated.
    folder = tmp_path / "folder"
    package = load_zip(data)
    for path, text in package_files(package).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text.replace(package.summary, "A new summary.") if path == "scenario.toml" else text)
    assert main(["scenarios", "import", str(folder)]) == 0
    assert _versions(slug) == [(1, "draft")]

    out = tmp_path / "out.zip"
    assert main(["scenarios", "export", slug, "--version", "1", "-o", str(out)]) == 0
    assert load_zip(out.read_bytes()).content_hash == load_package(folder).content_hash
    assert main(["scenarios", "export", "no-such-scenario", "-o", str(out)]) == 2
    assert "no scenario 'no-such-scenario'" in capsys.readouterr().err


def test_import_of_a_broken_package_exits_2_naming_the_problem(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "scenario.toml").write_text('slug = "x"\n')
    assert main(["scenarios", "import", str(tmp_path)]) == 2
    assert "brief.md: file is missing" in capsys.readouterr().err


@pytest.mark.bwrap
def test_import_with_publish_validates_and_publishes(app_db: None, tmp_path: Path,  # noqa: F811
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    slug, data = tiny_zip()
    archive = tmp_path / "package.zip"
    archive.write_bytes(data)
    assert main(["scenarios", "import", str(archive), "--publish"]) == 0
    assert f"Published {slug} version 1" in capsys.readouterr().out
    assert _versions(slug) == [(1, "published")]
    with new_session() as session:
        version = session.scalars(select(ScenarioVersion).join(Scenario).where(Scenario.slug == slug)).one()
        assert version.validation["valid"] is True and version.reference is not None
