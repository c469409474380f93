"""The migrated schema must equal the models, on SQLite and on PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect

from app.models import Base


def test_migrated_schema_matches_models(db_engine: Engine) -> None:
    with db_engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(ctx, Base.metadata)
    assert diff == [], f"migrations and models disagree: {diff}"


def test_migration_creates_every_table(db_engine: Engine) -> None:
    tables = set(inspect(db_engine).get_table_names())
    assert set(Base.metadata.tables) <= tables
    assert "alembic_version" in tables
