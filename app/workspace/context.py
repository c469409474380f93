"""Which workspace a request is about: the scenario version, the interview (if any) and its clock.

Practice opens the newest published version of a challenge; an interview pins its version and runs
on its clock (app/interviews/clock.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from app.attempts.package_info import PublicPackage, public_package
from app.core.errors import DojoError
from app.interviews import clock
from app.interviews.errors import InvitePending
from app.interviews.models import Interview
from app.scenarios import service as scenarios_service
from app.scenarios.models import ScenarioVersion
from app.users.models import User
from app.workspace.models import scope_for


class WorkspaceNotFound(DojoError):
    status_code = 404


@dataclass(frozen=True)
class Workspace:
    """One candidate's workspace on one scenario version, for practice or inside one interview."""

    user: User
    version: ScenarioVersion
    slug: str
    package: PublicPackage
    interview: Interview | None

    @property
    def scope(self) -> str:
        return scope_for(self.interview.id if self.interview else None)

    @property
    def interview_id(self) -> int | None:
        return self.interview.id if self.interview else None

    @property
    def time_limit(self) -> timedelta:
        minutes = self.interview.time_limit_minutes if self.interview else self.package.time_limit_minutes
        return timedelta(minutes=minutes)

    @property
    def deadline(self) -> datetime | None:
        """When an interview's time runs out (None for practice, or before it started)."""
        return clock.deadline(self.interview) if self.interview is not None else None

    def time_is_up(self) -> bool:
        return self.closed_reason() is not None

    def closed_reason(self) -> str | None:
        """Why nothing more can be run or saved (time up, ended, revoked), or None while it is open."""
        try:
            self.refuse_after_deadline()
        except clock.TimeIsUp as exc:
            return exc.message
        return None

    def refuse_after_deadline(self) -> None:
        """Raise TimeIsUp once an interview's deadline (and its grace) has passed."""
        if self.interview is not None:
            clock.refuse_after_deadline(self.interview)


def open_workspace(*, session: Session, user: User, slug: str, interview_id: int | None = None,
                   start_clock: bool = False) -> Workspace:
    """The workspace for a published challenge, or for the user's own interview on it.

    start_clock=True starts an interview's clock on the candidate's first visit (flushed, not committed).
    An interview whose invite is still pending raises InvitePending: the invite is accepted first.
    """
    if interview_id is None:
        version = scenarios_service.get_published(session=session, slug=slug)
        if version is None:
            raise WorkspaceNotFound(f"There is no published challenge {slug[:80]!r}.")
        return Workspace(user=user, version=version, slug=slug, package=public_package(version), interview=None)
    interview = session.get(Interview, interview_id)
    if interview is None or interview.candidate_id != user.id:
        raise WorkspaceNotFound(f"Interview {interview_id} not found.")
    if interview.invite_used_at is None:
        raise InvitePending(interview.id)
    pinned = session.get(ScenarioVersion, interview.scenario_version_id)
    assert pinned is not None
    if scenarios_service.slug_of(session=session, version=pinned) != slug:
        raise WorkspaceNotFound(f"Interview {interview_id} is not about the challenge {slug[:80]!r}.")
    if start_clock and interview.started_at is None:
        clock.start(interview)
        session.flush()
    return Workspace(user=user, version=pinned, slug=slug, package=public_package(pinned), interview=interview)


def open_interview_workspace(*, session: Session, user: User, interview_id: int) -> Workspace:
    """The workspace of one of the user's interviews, its clock started on the first visit."""
    interview = session.get(Interview, interview_id)
    if interview is None or interview.candidate_id != user.id:
        raise WorkspaceNotFound(f"Interview {interview_id} not found.")
    version = session.get(ScenarioVersion, interview.scenario_version_id)
    assert version is not None
    slug = scenarios_service.slug_of(session=session, version=version)
    return open_workspace(session=session, user=user, slug=slug, interview_id=interview_id, start_clock=True)
