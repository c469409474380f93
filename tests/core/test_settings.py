"""Settings: embedded defaults, the generated secret key, and refusal of placeholders in production."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.core.settings import Settings


def test_defaults_put_sqlite_in_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    settings = Settings(dojo_data_dir=tmp_path / "data", _env_file=None)
    assert settings.database_url == f"sqlite:///{(tmp_path / 'data' / 'dojo.sqlite3').resolve()}"
    assert settings.broker_url == ""


def test_generated_secret_key_is_kept_between_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)
    first = Settings(dojo_data_dir=tmp_path, _env_file=None).effective_secret_key()
    second = Settings(dojo_data_dir=tmp_path, _env_file=None).effective_secret_key()
    assert first == second and len(first) >= 32
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("key", ["", "changeme", "secret", "short-but-not-placeholder"])
def test_production_refuses_placeholder_secret_key(key: str) -> None:
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(dojo_env="production", secret_key=key, _env_file=None)


def test_production_accepts_long_random_secret_key() -> None:
    settings = Settings(dojo_env="production", secret_key="k" * 16 + "9f8e7d6c5b4a39281706f5e4", _env_file=None)
    assert settings.is_production
