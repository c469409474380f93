"""Interview states (submitted, revoked), invite emails and reminders, shared reviewers, one review each.

Revision ID: interview_review
Revises: authoring_jobs_audit
Create Date: 2026-12-02 23:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "interview_review"
down_revision = "authoring_jobs_audit"
branch_labels = None
depends_on = None

NEW_COLUMNS = ("submitted_at", "revoked_at", "invite_sent_at", "reminder_sent_at")


def upgrade() -> None:
    with op.batch_alter_table("interviews", schema=None) as batch_op:
        for name in NEW_COLUMNS:
            batch_op.add_column(sa.Column(name, sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "interview_reviewers",
        sa.Column("interview_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["interview_id"], ["interviews.id"],
                                name=op.f("fk_interview_reviewers_interview_id_interviews"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"],
                                name=op.f("fk_interview_reviewers_user_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("interview_id", "user_id", name=op.f("pk_interview_reviewers")),
    )
    with op.batch_alter_table("interview_reviewers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_interview_reviewers_user_id"), ["user_id"], unique=False)
    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.create_unique_constraint("uq_reviews_one_per_reviewer", ["interview_id", "reviewer_id"])


def downgrade() -> None:
    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.drop_constraint("uq_reviews_one_per_reviewer", type_="unique")
    with op.batch_alter_table("interview_reviewers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_interview_reviewers_user_id"))
    op.drop_table("interview_reviewers")
    with op.batch_alter_table("interviews", schema=None) as batch_op:
        for name in reversed(NEW_COLUMNS):
            batch_op.drop_column(name)
