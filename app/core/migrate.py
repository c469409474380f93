"""Bring a database to the newest Alembic revision (used by `dojo migrate` and `dojo serve`)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(url: str) -> Config:
    """An Alembic config pointing at the repository's migrations for this database URL."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("file_template", "%%(year)d-%%(month).2d-%%(day).2d_%%(hour).2d%%(minute).2d_%%(slug)s")
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade_to_head(engine: Engine) -> None:
    """Apply every pending migration on this engine's database."""
    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "head")
