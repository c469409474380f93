"""Two people opening the same invite at the same moment: exactly one gets the account (PostgreSQL)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import Engine, delete, func, select
from sqlalchemy.orm import Session
from web.support import unique_email

from app.interviews import service
from app.interviews.models import Interview
from app.scenarios.service import sync_builtin_scenarios
from app.users.models import User
from app.users.service import create_user


@pytest.mark.postgres
def test_simultaneous_redemptions_create_one_account(postgres_engine: Engine) -> None:
    email = unique_email("race")
    with Session(postgres_engine) as setup:
        version = sync_builtin_scenarios(session=setup)[0]
        interviewer = create_user(
            session=setup, email=unique_email("race-interviewer"), password=None, role="interviewer"
        )
        interview, token = service.create_interview(
            session=setup, interviewer=interviewer, candidate_email=email, scenario_version=version,
            time_limit_minutes=30, expires_in=timedelta(hours=1),
        )
        setup.commit()
        interview_id, interviewer_id = interview.id, interviewer.id

    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def redeem() -> None:
        with Session(postgres_engine) as session:
            service.find_invite(session=session, token=token)
            barrier.wait(timeout=10)
            try:
                service.redeem_invite(session=session, token=token, password="a good long password", signed_in=None)
                session.commit()
                outcomes.append("ok")
            except service.InviteError as exc:
                session.rollback()
                outcomes.append(str(exc.status_code))

    threads = [threading.Thread(target=redeem) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    try:
        assert sorted(outcomes) == ["410", "ok"]
        with Session(postgres_engine) as check:
            assert check.scalar(select(func.count()).select_from(User).where(User.email == email)) == 1
    finally:
        with Session(postgres_engine) as cleanup:
            cleanup.execute(delete(Interview).where(Interview.id == interview_id))
            cleanup.execute(delete(User).where(User.email == email))
            cleanup.execute(delete(User).where(User.id == interviewer_id))
            cleanup.commit()
