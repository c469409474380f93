"""The interviews domain's errors: DojoErrors, so the one handler answers them as JSON or a page."""

from __future__ import annotations

from app.core.errors import DojoError


class InterviewError(DojoError):
    """An interview action was refused; the message says why and what to do."""

    status_code = 422


class InviteError(InterviewError):
    """An invite link cannot be used (unknown 404, used or expired 410, wrong account 403/409)."""


class InterviewNotFound(InterviewError):
    """Unknown, or not visible to this user: both answer 404 so ids reveal nothing."""

    status_code = 404


class InterviewClosed(InterviewError):
    """The interview can no longer change this way (revoked, or already over)."""

    status_code = 409


class InvitePending(InterviewError):
    """The candidate's interview whose invite they have not accepted: nothing in it starts until they do."""

    status_code = 409

    def __init__(self, interview_id: int) -> None:
        super().__init__(f"Accept the invitation to interview {interview_id} first: the task, your drafts and "
                         "the clock start only once you have accepted it.")
        self.interview_id = interview_id
