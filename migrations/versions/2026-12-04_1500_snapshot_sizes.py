"""draft_snapshots.size_bytes: the per-user snapshot cap adds sizes up without reading the text.

Revision ID: snapshot_sizes
Revises: coaching_notes
Create Date: 2026-12-04 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "snapshot_sizes"
down_revision = "coaching_notes"
branch_labels = None
depends_on = None

# Existing rows: the bytes of the stored JSON text, close to the text's own size.
BACKFILL = {
    "sqlite": "UPDATE draft_snapshots SET size_bytes = length(CAST(files AS BLOB)) + length(CAST(notes AS BLOB))",
    "postgresql": "UPDATE draft_snapshots SET size_bytes = octet_length(files::text) + octet_length(notes::text)",
}


def upgrade() -> None:
    with op.batch_alter_table("draft_snapshots", schema=None) as batch_op:
        batch_op.add_column(sa.Column("size_bytes", sa.Integer(), server_default="0", nullable=False))
    backfill = BACKFILL.get(op.get_bind().dialect.name)
    if backfill:
        op.execute(backfill)


def downgrade() -> None:
    with op.batch_alter_table("draft_snapshots", schema=None) as batch_op:
        batch_op.drop_column("size_bytes")
