"""Every page that shows stored text, with the role that sees it. Adding a page is one line.

`path` is filled in with the seeded ids (slug, version, draft_version, version_id, interview_id,
attempt_id, practice_id, invite_token, open_interview_id). `shows` names a planted tag whose text must appear on
the page as plain characters, which proves the hostile text really reached it (and was escaped).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    role: str  # candidate (the hostile candidate), interviewer (owns the interview), admin, anonymous
    path: str
    shows: str | None = None


PAGES = [
    Page("candidate", "/candidate", shows="title"),
    Page("candidate", "/challenges/{slug}", shows="brief"),
    Page("candidate", "/challenges/{slug}/attempts/{practice_id}/panel", shows="syntax"),
    Page("candidate", "/challenges/{slug}/attempts/{practice_id}/diff"),
    Page("candidate", "/interviews/{interview_id}/workspace", shows="brief"),
    Page("candidate", "/account/password"),
    Page("interviewer", "/interviewer", shows="email"),
    Page("interviewer", "/interviewer/interviews/{interview_id}", shows="note-find"),
    Page("interviewer", "/interviewer/interviews/{interview_id}/playback"),
    Page("interviewer", "/interviewer/interviews/{interview_id}/report", shows="review-notes"),
    Page("interviewer", "/interviewer/versions/{version_id}/compare", shows="email"),
    Page("admin", "/admin", shows="title"),
    Page("admin", "/admin/users", shows="email"),
    Page("admin", "/admin/audit"),
    Page("admin", "/admin/scenarios", shows="title"),
    Page("admin", "/admin/scenarios/{slug}/versions/{version}", shows="title"),
    Page("admin", "/admin/scenarios/{slug}/versions/{version}/validation"),
    Page("admin", "/admin/scenarios/{slug}/versions/{version}/diff"),
    Page("admin", "/admin/scenarios/{slug}/versions/{version}/rejudge"),
    Page("admin", "/admin/scenarios/{slug}/versions/{draft_version}", shows="title"),
    Page("admin", "/admin/scenarios/{slug}/versions/{draft_version}/edit", shows="brief"),
    Page("admin", "/admin/scenarios/{slug}/versions/{draft_version}/bugs/new"),
    Page("admin", "/admin/rubric"),
    Page("anonymous", "/invite/{invite_token}", shows="invite-email"),
    Page("candidate", "/challenges/{slug}/attempts/{practice_id}/panel", shows="question"),  # the tips' questions
    Page("candidate", "/coaching/challenges/{slug}/report", shows="title"),
    Page("candidate", "/coaching/interviews/{interview_id}/report"),
    Page("interviewer", "/coaching/interviews/{interview_id}/report"),
    Page("admin", "/admin/coaching"),
]
