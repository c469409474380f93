"""Scenario jobs (validation, rejudge) split into worker tasks, and the audit log.

Revision ID: authoring_jobs_audit
Revises: workspace
Create Date: 2026-12-02 21:48:12.466333
"""

import sqlalchemy as sa
from alembic import op

revision = 'authoring_jobs_audit'
down_revision = 'workspace'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('audit_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('actor_id', sa.Integer(), nullable=True),
    sa.Column('actor_email', sa.String(length=254), nullable=False),
    sa.Column('action', sa.String(length=40), nullable=False),
    sa.Column('target', sa.String(length=200), nullable=False),
    sa.Column('details', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['actor_id'], ['users.id'], name=op.f('fk_audit_events_actor_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_events'))
    )
    with op.batch_alter_table('audit_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_events_action'), ['action'], unique=False)
        batch_op.create_index(batch_op.f('ix_audit_events_actor_id'), ['actor_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_audit_events_created_at'), ['created_at'], unique=False)

    op.create_table('scenario_jobs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('scenario_version_id', sa.Integer(), nullable=False),
    sa.Column('package', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('phase', sa.Integer(), nullable=False),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('done', sa.Integer(), nullable=False),
    sa.Column('current', sa.String(length=200), nullable=False),
    sa.Column('summary', sa.JSON(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_scenario_jobs_created_by_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['scenario_version_id'], ['scenario_versions.id'], name=op.f('fk_scenario_jobs_scenario_version_id_scenario_versions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_scenario_jobs'))
    )
    with op.batch_alter_table('scenario_jobs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_scenario_jobs_scenario_version_id'), ['scenario_version_id'], unique=False)

    op.create_table('job_tasks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('job_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('phase', sa.Integer(), nullable=False),
    sa.Column('attempt_id', sa.Integer(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('outcome', sa.JSON(), nullable=True),
    sa.Column('previous', sa.JSON(), nullable=True),
    sa.Column('tries', sa.Integer(), nullable=False),
    sa.Column('worker_id', sa.String(length=120), nullable=True),
    sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['attempt_id'], ['attempts.id'], name=op.f('fk_job_tasks_attempt_id_attempts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['job_id'], ['scenario_jobs.id'], name=op.f('fk_job_tasks_job_id_scenario_jobs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_job_tasks'))
    )
    with op.batch_alter_table('job_tasks', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_job_tasks_attempt_id'), ['attempt_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_job_tasks_job_id'), ['job_id'], unique=False)
        batch_op.create_index('ix_job_tasks_status_heartbeat', ['status', 'heartbeat_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('job_tasks', schema=None) as batch_op:
        batch_op.drop_index('ix_job_tasks_status_heartbeat')
        batch_op.drop_index(batch_op.f('ix_job_tasks_job_id'))
        batch_op.drop_index(batch_op.f('ix_job_tasks_attempt_id'))

    op.drop_table('job_tasks')
    with op.batch_alter_table('scenario_jobs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_scenario_jobs_scenario_version_id'))

    op.drop_table('scenario_jobs')
    with op.batch_alter_table('audit_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_audit_events_created_at'))
        batch_op.drop_index(batch_op.f('ix_audit_events_actor_id'))
        batch_op.drop_index(batch_op.f('ix_audit_events_action'))

    op.drop_table('audit_events')
