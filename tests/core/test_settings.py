"""Settings: embedded defaults, the generated secret key, and refusal of placeholders in production."""

from __future__ import annotations

import secrets
from collections.abc import Callable
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


@pytest.mark.parametrize("key", [
    "changeme-changeme-changeme-changeme-changeme",
    "a" * 32,
    "k" * 16 + "9f8e7d6c5b4a39281706f5e4",
    "production secret key for the dojo app",
    "my-company-dojo-production-secret-key-2024",
    "0123456789abcdef0123456789abcdef",
])
def test_production_refuses_long_but_guessable_secret_keys(key: str) -> None:
    """Long enough is not enough: repeats, sequences and phrases are refused, and the message says how to make one."""
    assert len(key) >= 32
    with pytest.raises(ValidationError, match="SECRET_KEY looks guessable") as refused:
        Settings(dojo_env="production", secret_key=key, _env_file=None)
    assert "python -c 'import secrets; print(secrets.token_urlsafe(48))'" in str(refused.value)


@pytest.mark.parametrize("make", [lambda: secrets.token_urlsafe(48), lambda: secrets.token_hex(16),
                                  lambda: secrets.token_hex(32), lambda: secrets.token_urlsafe(120)])
def test_production_accepts_random_secret_keys(make: Callable[[], str]) -> None:
    for _ in range(50):  # keys as the suggested command (and openssl rand -hex) makes them, many draws
        key = make()
        assert Settings(dojo_env="production", secret_key=key, _env_file=None).is_production, key


PRODUCTION_KEY = "Jf0mQ2r8vX1kL9sT4wZ7bN3cH6dG5yPe"


def test_production_refuses_the_unsafe_subprocess_runner() -> None:
    with pytest.raises(ValidationError, match="DOJO_UNSAFE_SUBPROCESS"):
        Settings(dojo_env="production", secret_key=PRODUCTION_KEY, dojo_unsafe_subprocess=True, _env_file=None)


def test_production_cookies_are_secure_unless_told_otherwise() -> None:
    assert Settings(dojo_env="production", secret_key=PRODUCTION_KEY, _env_file=None).secure_cookies
    told = Settings(dojo_env="production", secret_key=PRODUCTION_KEY, cookie_secure=False, _env_file=None)
    assert not told.secure_cookies
    assert not Settings(_env_file=None).secure_cookies


@pytest.mark.parametrize("url", ["dojo.example.com", "ftp://dojo.example.com", "https://dojo.example.com/app"])
def test_base_url_must_be_a_scheme_and_host(url: str) -> None:
    with pytest.raises(ValidationError, match="BASE_URL"):
        Settings(base_url=url, _env_file=None)


def test_proxy_headers_are_off_unless_proxies_are_trusted() -> None:
    from app.cli import uvicorn_options

    default = uvicorn_options(Settings(_env_file=None))
    assert default["proxy_headers"] is False and default["forwarded_allow_ips"] == ""
    trusted = uvicorn_options(Settings(trusted_proxies="10.0.0.5, 10.0.1.0/24", _env_file=None))
    assert trusted["proxy_headers"] is True and trusted["forwarded_allow_ips"] == "10.0.0.5,10.0.1.0/24"


def test_login_counters_follow_the_broker_redis_unless_set() -> None:
    assert Settings(_env_file=None).limits_storage_uri() == "memory://"
    assert Settings(broker_url="redis://h:6379/0", _env_file=None).limits_storage_uri() == "redis://h:6379/0"
    explicit = Settings(broker_url="redis://h:6379/0", rate_limit_storage_url="redis://other:6379/2", _env_file=None)
    assert explicit.limits_storage_uri() == "redis://other:6379/2"
