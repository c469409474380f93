"""Every model, imported once so Base.metadata is complete (Alembic and tests use this)."""

from app.attempts.dispatch_models import AttemptDispatch
from app.attempts.models import Attempt
from app.audit.models import AuditEvent
from app.coaching.models import CoachingTip, TipRating
from app.core.db import Base
from app.interviews.live.models import InterviewMessage, InterviewNote, KeystrokeBatch, LiveEvent
from app.interviews.models import Interview, Review
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import Scenario, ScenarioVersion
from app.site.models import SiteSetting
from app.users.models import ApiToken, EndedSession, User
from app.workspace.models import Draft, DraftSnapshot, HintReveal, WorkspaceEvent

__all__ = [
    "ApiToken", "Attempt", "AttemptDispatch", "AuditEvent", "Base", "CoachingTip", "Draft", "DraftSnapshot",
    "EndedSession", "HintReveal", "Interview", "InterviewMessage", "InterviewNote", "JobTask", "KeystrokeBatch",
    "LiveEvent", "Review", "Scenario", "ScenarioJob", "ScenarioVersion",
    "SiteSetting", "TipRating", "User", "WorkspaceEvent",
]
