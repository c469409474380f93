"""The follow view on the interview page: the candidate's latest text, where they are, notes and messages.

Rendered by the server, so a reload without JavaScript shows the latest saved text; with JavaScript
the page follows the live stream from `last_event_id` on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.package_info import public_package
from app.engine.scratch import FILE_NAME as SCRATCH_FILE
from app.engine.scratch import STARTER as SCRATCH_STARTER
from app.interviews.live import log, said
from app.interviews.live.models import LiveEvent
from app.interviews.models import Interview
from app.interviews.state import State, deadline, interview_state
from app.scenarios.models import ScenarioVersion
from app.users.models import User
from app.workspace.models import Draft, scope_for


@dataclass(frozen=True)
class LiveView:
    interview_id: int
    state: str
    following: bool  # the interview runs (or is about to): the page follows the stream
    files: dict[str, str]  # the candidate's latest saved text of each file
    active_file: str
    cursor_line: int | None
    focused: bool | None
    last_event_id: int
    seconds: int
    ends_at: datetime | None
    notes: list[said.Said] = field(default_factory=list)
    messages: list[said.Said] = field(default_factory=list)
    can_message: bool = False

    @property
    def file_names(self) -> list[str]:
        return list(self.files)


def starter_files(session: Session, scenario_version_id: int) -> dict[str, str]:
    """The files as the candidate first sees them (the scratch console's script included)."""
    version = session.get(ScenarioVersion, scenario_version_id)
    assert version is not None
    package = public_package(version)
    return {**{name: package.starter_files.get(name, "") for name in package.editable}, SCRATCH_FILE: SCRATCH_STARTER}


def candidate_files(session: Session, interview: Interview) -> dict[str, str]:
    """The candidate's draft of the interview, or the starter files before their first save."""
    files = starter_files(session, interview.scenario_version_id)
    if interview.candidate_id is not None:
        draft = session.scalar(select(Draft).where(
            Draft.user_id == interview.candidate_id, Draft.scenario_version_id == interview.scenario_version_id,
            Draft.scope == scope_for(interview.id)))
        if draft is not None:
            files.update({k: str(v) for k, v in draft.files.items()})
    return files


def live_view(*, session: Session, interview: Interview, user: User) -> LiveView:
    files = candidate_files(session, interview)
    state = interview_state(interview)
    presence = session.scalar(select(LiveEvent.data).where(
        LiveEvent.interview_id == interview.id, LiveEvent.kind == "presence").order_by(LiveEvent.id.desc()).limit(1))
    presence = dict(presence or {})
    shown = presence.get("file")
    active = shown if isinstance(shown, str) and shown in files else next(iter(files), "")
    line = presence.get("cursor_line")
    return LiveView(
        interview_id=interview.id, state=state.value, following=state in (State.invited, State.started),
        files=files, active_file=active, cursor_line=line if isinstance(line, int) else None,
        focused=presence.get("focused") if isinstance(presence.get("focused"), bool) else None,
        last_event_id=log.newest_id(session, interview.id), seconds=log.clock_seconds(interview),
        ends_at=deadline(interview),
        notes=said.notes_of(session=session, interview_id=interview.id),
        messages=said.messages_of(session=session, interview_id=interview.id),
        can_message=state is State.started,
    )
