"""An interview's states, ending it, and what the interviewer can do with its invite."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from sqlalchemy.orm import Session
from web.support import Account, unique_email

from app.core.db import utcnow
from app.interviews import invites, service, state
from app.interviews.errors import InterviewClosed, InterviewError, InviteError
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from interviews.factories import started_interview


def _invited(db: Session, make_account: Callable[..., Account], version: ScenarioVersion) -> tuple[Interview, str]:
    interview, token = service.create_interview(
        session=db, interviewer=make_account("interviewer").user, candidate_email=unique_email("cand"),
        scenario_version=version, time_limit_minutes=30, expires_in=timedelta(days=2),
    )
    db.commit()
    return interview, token


def test_states_follow_the_interview(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, _token = _invited(db, make_account, published_version)
    assert state.interview_state(interview) == state.State.invited
    assert state.interview_state(interview, utcnow() + timedelta(days=3)) == state.State.expired
    interview.invite_used_at = interview.started_at = utcnow() - timedelta(minutes=10)
    assert state.interview_state(interview) == state.State.started
    assert timedelta(minutes=9) < (state.time_used(interview) or timedelta(0)) <= timedelta(minutes=10, seconds=5)
    # Time runs out: the work left is the submission, and time used stops at the limit.
    assert state.interview_state(interview, utcnow() + timedelta(minutes=25)) == state.State.submitted
    assert state.time_used(interview, utcnow() + timedelta(hours=2)) == timedelta(minutes=30)
    state.finish_interview(db, interview)
    first_end = interview.submitted_at
    assert state.interview_state(interview) == state.State.submitted
    state.finish_interview(db, interview)
    assert interview.submitted_at == first_end  # a second "End interview" changes nothing


def test_finish_refuses_a_revoked_interview(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    candidate = make_account("candidate").user
    interview = started_interview(db=db, interviewer=make_account("interviewer").user, candidate=candidate,
                                  version=published_version)
    invites.revoke(session=db, interview=interview)
    assert state.interview_state(interview) == state.State.revoked
    with pytest.raises(InterviewClosed):
        state.finish_interview(db, interview)


def test_a_new_link_voids_the_old_and_revoking_voids_the_new(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, old = _invited(db, make_account, published_version)
    new = invites.reissue(session=db, interview=interview)
    db.commit()
    with pytest.raises(InviteError) as unknown:
        service.find_invite(session=db, token=old)
    assert unknown.value.status_code == 404
    assert service.find_invite(session=db, token=new).id == interview.id
    invites.revoke(session=db, interview=interview)
    db.commit()
    with pytest.raises(InviteError, match="withdrawn") as revoked:
        service.find_invite(session=db, token=new)
    assert revoked.value.status_code == 410
    with pytest.raises(InterviewClosed):
        invites.reissue(session=db, interview=interview)


def test_extend_gives_the_invite_days_and_the_candidate_minutes(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, token = _invited(db, make_account, published_version)
    before = interview.invite_expires_at
    invites.extend(session=db, interview=interview, invite_days=3)
    assert interview.invite_expires_at - before >= timedelta(days=3) - timedelta(seconds=1)
    with pytest.raises(InterviewError, match="positive"):
        invites.extend(session=db, interview=interview)
    candidate = make_account("candidate").user
    started = started_interview(db=db, interviewer=make_account("interviewer").user, candidate=candidate,
                                version=published_version, time_limit_minutes=60)
    with pytest.raises(InterviewError, match="already accepted"):
        invites.extend(session=db, interview=started, invite_days=1)
    invites.extend(session=db, interview=started, extra_minutes=15)
    assert started.time_limit_minutes == 75
    with pytest.raises(InterviewError, match="at most 480"):
        invites.extend(session=db, interview=started, extra_minutes=500)
