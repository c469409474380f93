"""Coaching tips record the note they answer and the rules behind them; candidates rate tips.

Revision ID: coaching_notes
Revises: attempt_dispatches
Create Date: 2026-12-02 23:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "coaching_notes"
down_revision = "attempt_dispatches"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("coaching_tips", schema=None) as batch_op:
        batch_op.add_column(sa.Column("note", sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column("rules", sa.JSON(), server_default="[]", nullable=False))
        batch_op.add_column(sa.Column("why", sa.JSON(), server_default="[]", nullable=False))
        batch_op.alter_column("source", existing_type=sa.String(length=40), type_=sa.String(length=80),
                              existing_nullable=False)
    op.create_table(
        "tip_ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tip_id", sa.Integer(), nullable=True),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("helpful", sa.Boolean(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(length=80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tip_id"], ["coaching_tips.id"], name=op.f("fk_tip_ratings_tip_id_coaching_tips"),
                                ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_tip_ratings_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tip_ratings")),
        sa.UniqueConstraint("tip_id", name=op.f("uq_tip_ratings_tip_id")),
    )
    with op.batch_alter_table("tip_ratings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tip_ratings_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("tip_ratings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tip_ratings_user_id"))
    op.drop_table("tip_ratings")
    with op.batch_alter_table("coaching_tips", schema=None) as batch_op:
        batch_op.alter_column("source", existing_type=sa.String(length=80), type_=sa.String(length=40),
                              existing_nullable=False)
        batch_op.drop_column("why")
        batch_op.drop_column("rules")
        batch_op.drop_column("note")
