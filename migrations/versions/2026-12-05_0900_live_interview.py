"""A live interview: private notes, messages to the candidate, the live event log, keystroke batches.

Revision ID: live_interview
Revises: snapshot_sizes
Create Date: 2026-12-05 09:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "live_interview"
down_revision = "snapshot_sizes"
branch_labels = None
depends_on = None


def _said(name: str) -> None:
    """interview_notes and interview_messages have the same columns."""
    op.create_table(
        name,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("interview_id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("seconds", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["author_id"], ["users.id"], name=op.f(f"fk_{name}_author_id_users"),
                                ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["interview_id"], ["interviews.id"], name=op.f(f"fk_{name}_interview_id_interviews"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{name}")),
    )
    with op.batch_alter_table(name, schema=None) as batch_op:
        batch_op.create_index(batch_op.f(f"ix_{name}_interview_id"), ["interview_id"], unique=False)


def upgrade() -> None:
    _said("interview_notes")
    _said("interview_messages")
    op.create_table(
        "live_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("interview_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("key", sa.String(length=80), nullable=True),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["interview_id"], ["interviews.id"], name=op.f("fk_live_events_interview_id_interviews"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_live_events")),
        sa.UniqueConstraint("interview_id", "key", name="uq_live_events_key"),
    )
    with op.batch_alter_table("live_events", schema=None) as batch_op:
        batch_op.create_index("ix_live_events_interview_id_id", ["interview_id", "id"], unique=False)
    op.create_table(
        "keystroke_batches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("interview_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("file", sa.String(length=80), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("after_hash", sa.String(length=16), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["interview_id"], ["interviews.id"],
                                name=op.f("fk_keystroke_batches_interview_id_interviews"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_keystroke_batches_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_keystroke_batches")),
    )
    with op.batch_alter_table("keystroke_batches", schema=None) as batch_op:
        batch_op.create_index("ix_keystroke_batches_interview_file", ["interview_id", "file", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_keystroke_batches_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_table("keystroke_batches")
    op.drop_table("live_events")
    op.drop_table("interview_messages")
    op.drop_table("interview_notes")
