"""One Settings object for the whole app, read from the environment (and a .env file)."""

from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path

from pydantic import model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PLACEHOLDER_SECRETS = {"", "changeme", "change-me", "changethis", "secret", "dev", "development"}


class Settings(BaseSettings):
    """Runtime configuration; see CONTRACTS.md for the public variables."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    dojo_env: str = "development"
    dojo_data_dir: Path = Path("./var")
    database_url: str = ""
    secret_key: str = ""
    broker_url: str = ""
    cookie_secure: bool = False
    session_max_age_seconds: int = 12 * 3600
    # Limits on what a request may carry; bigger inputs are refused, never truncated.
    max_file_bytes: int = 64 * 1024
    max_files_per_attempt: int = 8
    max_form_field_chars: int = 20_000
    login_attempts_per_ip: int = 20
    login_attempts_per_account: int = 5
    login_window_seconds: int = 300
    attempts_per_user_per_minute: int = 10
    worker_concurrency: int = 0  # 0 = one per CPU core
    heartbeat_seconds: float = 5.0
    stale_after_seconds: float = 60.0
    max_tries: int = 2
    # Per harness run; a grading takes a few seconds, so these only stop code that never finishes.
    grading_cpu_seconds: int = 60
    grading_wall_seconds: float = 90.0
    dojo_unsafe_subprocess: bool = False
    # Compute each built-in's reference measurements in the background when `dojo serve` starts.
    warm_references: bool = True

    @property
    def is_production(self) -> bool:
        return self.dojo_env.lower() == "production"

    @model_validator(mode="after")
    def _fill_defaults(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{(self.dojo_data_dir / 'dojo.sqlite3').resolve()}"
        weak_key = self.secret_key.strip().lower() in PLACEHOLDER_SECRETS or len(self.secret_key) < 32
        if self.is_production and weak_key:
            raise ValueError(
                "SECRET_KEY must be set to a random value of at least 32 characters when DOJO_ENV=production"
            )
        return self

    def ensure_data_dir(self) -> Path:
        """Create the data directory on first run."""
        self.dojo_data_dir.mkdir(parents=True, exist_ok=True)
        return self.dojo_data_dir

    def effective_secret_key(self) -> str:
        """The configured key, or one generated once and kept in the data directory."""
        if self.secret_key:
            return self.secret_key
        key_file = self.ensure_data_dir() / "secret_key"
        if not key_file.exists():
            key_file.write_text(secrets.token_urlsafe(48))
            key_file.chmod(0o600)
        return key_file.read_text().strip()


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings (tests clear the cache after changing the environment)."""
    return Settings()
