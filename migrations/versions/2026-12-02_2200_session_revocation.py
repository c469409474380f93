"""Revocation that every web process sees: users.session_generation and the ended_sessions table.

Revision ID: session_revocation
Revises: 0001
Create Date: 2026-12-02 22:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "session_revocation"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("session_generation", sa.Integer(), server_default="0", nullable=False))
    op.create_table(
        "ended_sessions",
        sa.Column("nonce_digest", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("nonce_digest", name=op.f("pk_ended_sessions")),
    )
    with op.batch_alter_table("ended_sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ended_sessions_expires_at"), ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("ended_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ended_sessions_expires_at"))
    op.drop_table("ended_sessions")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("session_generation")
