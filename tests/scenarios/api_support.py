"""The real app on the process-wide database (where workers run jobs), with bearer-token users."""

from __future__ import annotations

import io
import uuid
import zipfile

import pytest
from dispatch.tiny_scenario import tiny_package
from fastapi.testclient import TestClient

from app.auth.tokens import issue_token
from app.core.db import new_session
from app.engine.package import ScenarioPackage
from app.main import create_app
from app.scenarios.export import package_zip
from app.users.service import create_user


@pytest.fixture(scope="module")
def app_client(app_db: None) -> TestClient:
    """No lifespan: no pool starts; tests run the queued tasks themselves, as a worker would."""
    return TestClient(create_app())


def bearer(role: str) -> dict[str, str]:
    with new_session() as session:
        user = create_user(session=session, email=f"{role}-{uuid.uuid4().hex[:8]}@example.com", password=None,
                           role=role)
        token = issue_token(session=session, user=user)
        session.commit()
    return {"Authorization": f"Bearer {token}"}


def tiny_zip(*, mutate=None) -> tuple[str, bytes]:
    """(slug, zip) of the tiny package under a fresh slug, optionally changed first."""
    data = tiny_package().to_dict()
    data["slug"] = f"api-{uuid.uuid4().hex[:8]}"
    if mutate:
        mutate(data)
    return data["slug"], package_zip(ScenarioPackage.from_dict(data))


def zip_of(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()
