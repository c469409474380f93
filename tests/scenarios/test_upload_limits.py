"""Scenario zip uploads through the real app: damaged zips are 422s naming the entry, never 500s, and the
upload ceiling follows SCENARIO_ZIP_MAX_BYTES (the form limit of other pages does not cap it)."""

from __future__ import annotations

import io
import random
import string
import zipfile
from collections.abc import Iterator

import pytest
from dispatch.conftest import app_db  # noqa: F401
from dispatch.tiny_scenario import tiny_package
from engine.zip_damage import HOW, damaged
from fastapi.testclient import TestClient

from app.core.settings import get_settings
from app.engine.package import ScenarioPackage
from app.main import create_app
from app.scenarios.export import package_files
from scenarios.api_support import app_client, bearer, tiny_zip  # noqa: F401

BASE = "/api/admin/scenarios"
# What the form limit of every other page allows (max_form_field_chars x FORM_BODY_FACTOR): about 320 KB.
FORM_LIMIT = 20_000 * 16


def _upload(client: TestClient, data: bytes) -> object:
    return client.post(BASE, files={"file": ("package.zip", data, "application/zip")}, headers=bearer("admin"))


def _tiny_files(slug: str) -> dict[str, str]:
    data = tiny_package().to_dict()
    data["slug"] = slug
    return package_files(ScenarioPackage.from_dict(data))


def _stored_zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _big_package_zip(slug: str, padding: int) -> bytes:
    """A valid package made large by a comment of random words in each solution file, stored uncompressed."""
    words = random.Random(7)
    files = _tiny_files(slug)
    for name in [n for n in files if n.startswith("solution/")]:
        text = " ".join("".join(words.choices(string.ascii_lowercase, k=7)) for _ in range(padding // 8))
        files[name] = files[name] + "\n# " + text + "\n"
    return _stored_zip(files)


@pytest.mark.parametrize("how", HOW)
def test_a_damaged_zip_is_a_422_naming_the_entry(app_client: TestClient, how: str) -> None:  # noqa: F811
    files = _tiny_files("damaged-zip")
    entry = next(name for name in files if name.startswith("solution/"))
    response = _upload(app_client, damaged(files, entry, how))
    assert response.status_code == 422, response.text  # type: ignore[attr-defined]
    assert response.json()["detail"].startswith(f"{entry}: ")  # type: ignore[attr-defined]


def test_a_zip_above_the_form_limit_and_below_the_zip_setting_is_stored(app_client: TestClient) -> None:  # noqa: F811
    slug = "big-upload-" + "".join(random.choices(string.ascii_lowercase, k=6))
    data = _big_package_zip(slug, padding=200_000)
    assert FORM_LIMIT < len(data) < get_settings().scenario_zip_max_bytes
    response = _upload(app_client, data)
    assert response.status_code == 201, response.text[:300]  # type: ignore[attr-defined]
    assert response.json()["slug"] == slug  # type: ignore[attr-defined]


@pytest.fixture
def small_zip_limit(app_db: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:  # noqa: F811
    """The app built with SCENARIO_ZIP_MAX_BYTES at 100 000."""
    monkeypatch.setenv("SCENARIO_ZIP_MAX_BYTES", "100000")
    get_settings.cache_clear()
    try:
        yield TestClient(create_app())
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_the_upload_ceiling_follows_the_setting(small_zip_limit: TestClient) -> None:
    # Within the setting: stored. Above it, but within the multipart allowance: the zip check names the limit.
    assert _upload(small_zip_limit, tiny_zip()[1]).status_code == 201  # type: ignore[attr-defined]
    over = _upload(small_zip_limit, _big_package_zip("over-the-limit", padding=60_000))
    assert over.status_code == 422 and over.json()["detail"] == "zip: larger than 100000 bytes"  # type: ignore[attr-defined]
    # Far above it: the body is refused before it is read.
    huge = _upload(small_zip_limit, _big_package_zip("far-over-the-limit", padding=200_000))
    assert huge.status_code == 413  # type: ignore[attr-defined]
