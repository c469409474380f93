"""Interviews: creation rules, and redeeming invites once, in time, with nothing half-written."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.support import Account, unique_email

from app.core.security import token_digest, verify_password
from app.interviews import service
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.users.models import User

NEW_PASSWORD = "a good long password"


def _create(db: Session, interviewer: User, version: ScenarioVersion, email: str, **kwargs: object) -> str:
    options: dict[str, object] = {"time_limit_minutes": 60, "expires_in": timedelta(days=7), **kwargs}
    _interview, token = service.create_interview(
        session=db, interviewer=interviewer, candidate_email=email, scenario_version=version, **options  # type: ignore[arg-type]
    )
    db.commit()
    return token


def _user(db: Session, email: str) -> User | None:
    return db.scalar(select(User).where(User.email == email))


def test_create_interview_stores_only_the_token_digest(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interviewer = make_account("interviewer").user
    email = unique_email("cand")
    token = _create(db, interviewer, published_version, email.upper())
    interview = db.scalar(select(Interview).where(Interview.invite_token_hash == token_digest(token)))
    assert interview is not None
    assert interview.candidate_email == email
    assert interview.invite_token_hash != token


@pytest.mark.parametrize(
    ("email", "minutes", "days", "message"),
    [
        ("not-an-email", 60, 7, "valid candidate email"),
        ("ok@example.com", 2, 7, "time limit"),
        ("ok@example.com", 60, 31, "between 10 minutes and 30 days"),
    ],
)
def test_create_interview_refuses_bad_input(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion,
    email: str, minutes: int, days: int, message: str,
) -> None:
    interviewer = make_account("interviewer").user
    with pytest.raises(service.InterviewError, match=message):
        service.create_interview(
            session=db, interviewer=interviewer, candidate_email=email, scenario_version=published_version,
            time_limit_minutes=minutes, expires_in=timedelta(days=days),
        )


def test_redeem_creates_the_candidate_and_marks_the_invite_used(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    email = unique_email("cand")
    token = _create(db, make_account("interviewer").user, published_version, email)
    user = service.redeem_invite(session=db, token=token, password=NEW_PASSWORD, signed_in=None)
    db.commit()
    assert user.role == "candidate"
    assert verify_password(NEW_PASSWORD, user.password_hash)
    interview = db.scalar(select(Interview).where(Interview.invite_token_hash == token_digest(token)))
    assert interview is not None and interview.invite_used_at is not None
    assert interview.candidate_id == user.id


def test_redeem_twice_is_refused_as_used(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    token = _create(db, make_account("interviewer").user, published_version, unique_email("cand"))
    service.redeem_invite(session=db, token=token, password=NEW_PASSWORD, signed_in=None)
    db.commit()
    with pytest.raises(service.InviteError, match="already been used") as caught:
        service.redeem_invite(session=db, token=token, password=NEW_PASSWORD, signed_in=None)
    assert caught.value.status_code == 410


def test_expired_invite_is_refused_and_creates_no_account(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    email = unique_email("cand")
    token = _create(db, make_account("interviewer").user, published_version, email)
    interview = db.scalar(select(Interview).where(Interview.invite_token_hash == token_digest(token)))
    assert interview is not None
    interview.invite_expires_at = interview.invite_expires_at - timedelta(days=8)
    db.commit()
    with pytest.raises(service.InviteError, match="expired") as caught:
        service.redeem_invite(session=db, token=token, password=NEW_PASSWORD, signed_in=None)
    assert caught.value.status_code == 410
    db.rollback()
    assert _user(db, email) is None


def test_unknown_invite_is_404(db: Session) -> None:
    with pytest.raises(service.InviteError) as caught:
        service.find_invite(session=db, token="no-such-token")
    assert caught.value.status_code == 404


def test_short_password_leaves_no_account_and_the_invite_unused(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    email = unique_email("cand")
    token = _create(db, make_account("interviewer").user, published_version, email)
    with pytest.raises(service.InviteError, match="at least 8") as caught:
        service.redeem_invite(session=db, token=token, password="short", signed_in=None)
    assert caught.value.status_code == 422
    db.rollback()
    assert _user(db, email) is None
    assert service.find_invite(session=db, token=token).invite_used_at is None


def test_invite_for_an_existing_account_with_password_asks_to_sign_in(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    existing = make_account("candidate")
    token = _create(db, make_account("interviewer").user, published_version, existing.email)
    with pytest.raises(service.InviteError, match="Sign in") as caught:
        service.redeem_invite(session=db, token=token, password=NEW_PASSWORD, signed_in=None)
    assert caught.value.status_code == 409
    user = service.redeem_invite(session=db, token=token, password=None, signed_in=existing.user)
    assert user.id == existing.user.id


def test_signed_in_user_cannot_take_someone_elses_invite(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    token = _create(db, make_account("interviewer").user, published_version, unique_email("cand"))
    with pytest.raises(service.InviteError) as caught:
        service.redeem_invite(session=db, token=token, password=None, signed_in=make_account("candidate").user)
    assert caught.value.status_code == 403


def test_invited_account_without_password_is_completed_not_duplicated(
    db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    pending = make_account("candidate", password=None)
    token = _create(db, make_account("interviewer").user, published_version, pending.email)
    user = service.redeem_invite(session=db, token=token, password=NEW_PASSWORD, signed_in=None)
    assert user.id == pending.user.id
    assert verify_password(NEW_PASSWORD, user.password_hash)
