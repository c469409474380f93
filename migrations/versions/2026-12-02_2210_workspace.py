"""workspace: drafts, snapshots, hints, editor events, site settings, attempt progress

Revision ID: workspace
Revises: session_revocation
Create Date: 2026-12-02 21:42:00
"""

import sqlalchemy as sa
from alembic import op

revision = 'workspace'
down_revision = 'session_revocation'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('site_settings',
    sa.Column('key', sa.String(length=80), nullable=False),
    sa.Column('value', sa.JSON(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_by_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['updated_by_id'], ['users.id'], name=op.f('fk_site_settings_updated_by_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_site_settings'))
    )
    op.create_table('drafts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('scenario_version_id', sa.Integer(), nullable=False),
    sa.Column('interview_id', sa.Integer(), nullable=True),
    sa.Column('scope', sa.String(length=40), nullable=False),
    sa.Column('files', sa.JSON(), nullable=False),
    sa.Column('notes', sa.JSON(), nullable=False),
    sa.Column('revision', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['interview_id'], ['interviews.id'], name=op.f('fk_drafts_interview_id_interviews'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['scenario_version_id'], ['scenario_versions.id'], name=op.f('fk_drafts_scenario_version_id_scenario_versions'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_drafts_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_drafts')),
    sa.UniqueConstraint('user_id', 'scenario_version_id', 'scope', name='uq_drafts_owner')
    )
    with op.batch_alter_table('drafts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_drafts_interview_id'), ['interview_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_drafts_user_id'), ['user_id'], unique=False)

    op.create_table('hint_reveals',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('scenario_version_id', sa.Integer(), nullable=False),
    sa.Column('interview_id', sa.Integer(), nullable=True),
    sa.Column('scope', sa.String(length=40), nullable=False),
    sa.Column('bug_id', sa.String(length=80), nullable=False),
    sa.Column('level', sa.Integer(), nullable=False),
    sa.Column('revealed_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['interview_id'], ['interviews.id'], name=op.f('fk_hint_reveals_interview_id_interviews'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['scenario_version_id'], ['scenario_versions.id'], name=op.f('fk_hint_reveals_scenario_version_id_scenario_versions'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_hint_reveals_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_hint_reveals')),
    sa.UniqueConstraint('user_id', 'scenario_version_id', 'scope', 'bug_id', 'level', name='uq_hint_reveals_once')
    )
    with op.batch_alter_table('hint_reveals', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_hint_reveals_interview_id'), ['interview_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_hint_reveals_user_id'), ['user_id'], unique=False)

    op.create_table('workspace_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('scenario_version_id', sa.Integer(), nullable=False),
    sa.Column('interview_id', sa.Integer(), nullable=True),
    sa.Column('scope', sa.String(length=40), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('detail', sa.JSON(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['interview_id'], ['interviews.id'], name=op.f('fk_workspace_events_interview_id_interviews'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['scenario_version_id'], ['scenario_versions.id'], name=op.f('fk_workspace_events_scenario_version_id_scenario_versions'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_workspace_events_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_workspace_events'))
    )
    with op.batch_alter_table('workspace_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_workspace_events_interview_id'), ['interview_id'], unique=False)
        batch_op.create_index('ix_workspace_events_owner', ['user_id', 'scenario_version_id', 'scope'], unique=False)

    op.create_table('draft_snapshots',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('draft_id', sa.Integer(), nullable=False),
    sa.Column('revision', sa.Integer(), nullable=False),
    sa.Column('files', sa.JSON(), nullable=False),
    sa.Column('notes', sa.JSON(), nullable=False),
    sa.Column('taken_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['draft_id'], ['drafts.id'], name=op.f('fk_draft_snapshots_draft_id_drafts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_draft_snapshots'))
    )
    with op.batch_alter_table('draft_snapshots', schema=None) as batch_op:
        batch_op.create_index('ix_draft_snapshots_draft_taken', ['draft_id', 'taken_at'], unique=False)

    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('progress', sa.JSON(), nullable=True))



def downgrade() -> None:
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.drop_column('progress')

    with op.batch_alter_table('draft_snapshots', schema=None) as batch_op:
        batch_op.drop_index('ix_draft_snapshots_draft_taken')

    op.drop_table('draft_snapshots')
    with op.batch_alter_table('workspace_events', schema=None) as batch_op:
        batch_op.drop_index('ix_workspace_events_owner')
        batch_op.drop_index(batch_op.f('ix_workspace_events_interview_id'))

    op.drop_table('workspace_events')
    with op.batch_alter_table('hint_reveals', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_hint_reveals_user_id'))
        batch_op.drop_index(batch_op.f('ix_hint_reveals_interview_id'))

    op.drop_table('hint_reveals')
    with op.batch_alter_table('drafts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_drafts_user_id'))
        batch_op.drop_index(batch_op.f('ix_drafts_interview_id'))

    op.drop_table('drafts')
    op.drop_table('site_settings')
