"""attempt_dispatches: when each attempt was last sent to the broker, and the submitting request's id.

Revision ID: attempt_dispatches
Revises: interview_review
Create Date: 2026-12-02 23:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "attempt_dispatches"
down_revision = "interview_review"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "attempt_dispatches",
        sa.Column("attempt_id", sa.Integer(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sends", sa.Integer(), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(["attempt_id"], ["attempts.id"], name=op.f("fk_attempt_dispatches_attempt_id_attempts"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("attempt_id", name=op.f("pk_attempt_dispatches")),
    )
    with op.batch_alter_table("attempt_dispatches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_attempt_dispatches_sent_at"), ["sent_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("attempt_dispatches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_attempt_dispatches_sent_at"))
    op.drop_table("attempt_dispatches")
