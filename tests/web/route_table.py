"""The expected status of every route for every role.

To add a route: add one row keyed by (METHOD, path template exactly as FastAPI declares it), with
the status each role should get. Give `path` when the template has parameters (use ids and slugs
that do not exist unless the row needs a real one) and `json` for a JSON body. Cookie roles send a
valid CSRF token, so the table checks who may do what, not CSRF (tests/auth covers CSRF).
test_route_table.py fails when a route has no row, or a row has no route.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ROLES = ("anonymous", "candidate", "interviewer", "admin")
TO_SIGN_IN = 303  # pages send anonymous visitors to the sign-in form


@dataclass(frozen=True)
class Expect:
    anonymous: int
    candidate: int
    interviewer: int
    admin: int
    path: str | None = None  # a concrete path for templates with {parameters}
    json: Any = None  # a JSON body (API routes); page POSTs send an empty form
    form: dict[str, str] = field(default_factory=dict)
    ends_session: bool = False  # signs the account out server-side: such rows run last

    def status_for(self, role: str) -> int:
        return int(getattr(self, role))


def everyone(status: int, **kwargs: Any) -> Expect:
    return Expect(status, status, status, status, **kwargs)


def signed_in(status: int, *, anonymous: int, **kwargs: Any) -> Expect:
    return Expect(anonymous, status, status, status, **kwargs)


ROUTE_TABLE: dict[tuple[str, str], Expect] = {
    # System
    ("GET", "/healthz"): everyone(200),
    ("GET", "/readyz"): everyone(200),
    ("GET", "/metrics"): Expect(TO_SIGN_IN, 403, 403, 200),  # admins only (a scraper sends an admin's token)
    ("GET", "/docs"): everyone(200),
    ("GET", "/openapi.json"): everyone(200),
    # Signing in and out
    ("GET", "/"): everyone(303),
    ("GET", "/dashboard"): everyone(303),
    ("GET", "/sign-in"): signed_in(303, anonymous=200),
    ("POST", "/sign-in"): everyone(401),  # empty credentials
    ("POST", "/sign-out"): everyone(303, ends_session=True),
    # One's own account
    ("GET", "/account/password"): signed_in(200, anonymous=TO_SIGN_IN),
    ("POST", "/account/password"): signed_in(422, anonymous=TO_SIGN_IN),  # wrong current password
    ("POST", "/account/sign-out-everywhere"): signed_in(303, anonymous=TO_SIGN_IN, ends_session=True),
    # Dashboards
    ("GET", "/candidate"): signed_in(200, anonymous=TO_SIGN_IN),
    ("GET", "/interviewer"): Expect(TO_SIGN_IN, 403, 200, 200),
    ("POST", "/interviewer/interviews"): Expect(TO_SIGN_IN, 403, 422, 422),  # no challenge chosen
    ("GET", "/admin"): Expect(TO_SIGN_IN, 403, 403, 200),
    ("GET", "/admin/users"): Expect(TO_SIGN_IN, 403, 403, 200),
    ("GET", "/admin/audit"): Expect(TO_SIGN_IN, 403, 403, 200),
    # Scenario authoring pages (an unknown scenario is 404 for admins)
    ("GET", "/admin/scenarios"): Expect(TO_SIGN_IN, 403, 403, 200),
    ("POST", "/admin/scenarios"): Expect(TO_SIGN_IN, 403, 403, 422),  # no title
    ("POST", "/admin/scenarios/{slug}/archive"): Expect(
        TO_SIGN_IN, 403, 403, 404, path="/admin/scenarios/no-such-scenario/archive"),
    **{(method, f"/admin/scenarios/{{slug}}/versions/{{number}}{suffix}"): Expect(
        TO_SIGN_IN, 403, 403, 404, path=f"/admin/scenarios/no-such-scenario/versions/1{suffix}")
       for method, suffix in (("GET", ""), ("GET", "/validation"), ("POST", "/validate"), ("POST", "/publish"),
                              ("POST", "/retire"), ("POST", "/new-draft"), ("POST", "/rejudge"), ("GET", "/rejudge"),
                              ("GET", "/diff"), ("GET", "/edit"), ("POST", "/edit"), ("POST", "/brief-preview"),
                              ("GET", "/bugs/new"), ("POST", "/bugs"))},
    ("POST", "/admin/scenarios/{slug}/versions/{number}/bugs/{bug_id}/remove"): Expect(
        TO_SIGN_IN, 403, 403, 404, path="/admin/scenarios/no-such-scenario/versions/1/bugs/x/remove"),
    ("POST", "/admin/users"): Expect(TO_SIGN_IN, 403, 403, 422),  # no email given
    ("POST", "/admin/users/{user_id}/active"): Expect(
        TO_SIGN_IN, 403, 403, 404, path="/admin/users/999999999/active", form={"active": "false"}
    ),
    ("POST", "/admin/users/{user_id}/role"): Expect(
        TO_SIGN_IN, 403, 403, 404, path="/admin/users/999999999/role", form={"role": "admin"}
    ),
    # Interview review pages (candidates are told they do not exist; unknown ids are 404)
    ("GET", "/interviewer/interviews/{interview_id}"): Expect(
        TO_SIGN_IN, 404, 404, 404, path="/interviewer/interviews/999999999"),
    ("GET", "/interviewer/interviews/{interview_id}/playback"): Expect(
        TO_SIGN_IN, 404, 404, 404, path="/interviewer/interviews/999999999/playback"),
    ("GET", "/interviewer/interviews/{interview_id}/report"): Expect(
        TO_SIGN_IN, 404, 404, 404, path="/interviewer/interviews/999999999/report"),
    **{("POST", f"/interviewer/interviews/{{interview_id}}/{action}"): Expect(
        TO_SIGN_IN, 404, 404, 404, path=f"/interviewer/interviews/999999999/{action}")
       for action in ("review", "invite", "revoke", "extend", "reviewers")},
    ("POST", "/interviewer/interviews/{interview_id}/reviewers/{user_id}/remove"): Expect(
        TO_SIGN_IN, 404, 404, 404, path="/interviewer/interviews/999999999/reviewers/1/remove"),
    ("GET", "/interviewer/versions/{version_id}/compare"): Expect(
        TO_SIGN_IN, 404, 404, 404, path="/interviewer/versions/999999999/compare"),
    ("GET", "/admin/rubric"): Expect(TO_SIGN_IN, 403, 403, 200),
    ("POST", "/admin/rubric"): Expect(TO_SIGN_IN, 403, 403, 422, form={"title_0": ""}),  # no criteria left
    # Invites (an unknown token is 404 for everyone)
    ("GET", "/invite/{token}"): everyone(404, path="/invite/not-a-real-invite-token"),
    ("POST", "/invite/{token}"): everyone(404, path="/invite/not-a-real-invite-token"),
    ("GET", "/invite/interviews/{interview_id}"): signed_in(404, anonymous=TO_SIGN_IN,
                                                             path="/invite/interviews/999999999"),
    ("POST", "/invite/interviews/{interview_id}"): signed_in(404, anonymous=TO_SIGN_IN,
                                                              path="/invite/interviews/999999999"),
    ("GET", "/invite/interviews/{interview_id}/lobby"): signed_in(404, anonymous=TO_SIGN_IN,
                                                                   path="/invite/interviews/999999999/lobby"),
    ("POST", "/invite/interviews/{interview_id}/start"): signed_in(404, anonymous=TO_SIGN_IN,
                                                                    path="/invite/interviews/999999999/start"),
    # Auth API
    ("POST", "/api/auth/token"): everyone(422, json={}),
    ("DELETE", "/api/auth/token"): signed_in(400, anonymous=401),  # cookie sessions have no token to revoke
    ("GET", "/api/auth/me"): signed_in(200, anonymous=401),
    # Scenarios and attempts API
    ("GET", "/api/scenarios"): signed_in(200, anonymous=401),
    ("GET", "/api/scenarios/{slug}"): signed_in(404, anonymous=401, path="/api/scenarios/no-such-scenario"),
    ("POST", "/api/attempts"): signed_in(422, anonymous=401, json={}),
    ("GET", "/api/attempts/{attempt_id}"): signed_in(404, anonymous=401, path="/api/attempts/999999999"),
    # Scenario authoring API (admins only; an unknown scenario is 404)
    ("POST", "/api/admin/scenarios"): Expect(401, 403, 403, 422, json={}),  # no file
    **{(method, f"/api/admin/scenarios/{{slug}}/versions/{{number}}{suffix}"): Expect(
        401, 403, 403, 404, path=f"/api/admin/scenarios/no-such-scenario/versions/1{suffix}",
        json={} if method == "POST" else None)
       for method, suffix in (("GET", ""), ("POST", "/validate"), ("POST", "/publish"), ("POST", "/retire"),
                              ("POST", "/rejudge"), ("GET", "/export"))},
    # Interviews API (candidates are told these do not exist)
    ("POST", "/api/interviews"): Expect(401, 404, 422, 422, json={}),
    ("GET", "/api/interviews/{interview_id}"): Expect(401, 404, 404, 404, path="/api/interviews/999999999"),
    ("POST", "/api/interviews/{interview_id}/reviews"): Expect(
        401, 404, 404, 404, path="/api/interviews/999999999/reviews", json={}
    ),
    ("POST", "/api/interviews/{interview_id}/start"): Expect(401, 404, 404, 404,
                                                             path="/api/interviews/999999999/start"),
    ("GET", "/api/interviews.csv"): Expect(401, 404, 200, 200),
    # A live interview (app/interviews/live)
    ("GET", "/api/interviews/{interview_id}/live"): Expect(401, 404, 404, 404, path="/api/interviews/999999999/live"),
    **{("POST", f"/api/interviews/{{interview_id}}/{said}"): Expect(
        401, 404, 404, 404, path=f"/api/interviews/999999999/{said}", json={"text": "x"})
       for said in ("notes", "messages")},
    **{("POST", f"/interviewer/interviews/{{interview_id}}/{said}"): Expect(
        TO_SIGN_IN, 404, 404, 404, path=f"/interviewer/interviews/999999999/{said}", form={"text": "x"})
       for said in ("notes", "messages")},
    ("GET", "/interviewer/interviews/{interview_id}/playback.json"): Expect(
        TO_SIGN_IN, 404, 404, 404, path="/interviewer/interviews/999999999/playback.json"),
    ("GET", "/interviews/{interview_id}/messages/live"): signed_in(404, anonymous=401,
                                                                   path="/interviews/999999999/messages/live"),
    ("POST", "/interviews/{interview_id}/live/presence"): signed_in(404, anonymous=TO_SIGN_IN, json={},
                                                                    path="/interviews/999999999/live/presence"),
    ("GET", "/api/rubric"): Expect(401, 404, 200, 200),
    ("POST", "/api/invites/{token}"): everyone(404, path="/api/invites/not-a-real-invite-token", json={}),
    ("POST", "/api/attempts/{attempt_id}/cancel"): signed_in(404, anonymous=401,
                                                            path="/api/attempts/999999999/cancel"),
    # Self sign-up (closed unless an admin opens it; an empty form is refused)
    ("GET", "/sign-up"): signed_in(303, anonymous=403),
    ("POST", "/sign-up"): everyone(403),
    ("POST", "/admin/settings/sign-up"): Expect(TO_SIGN_IN, 403, 403, 303, ends_session=False),
    # The candidate workspace (every role may practise; an unknown challenge or attempt is 404)
    ("GET", "/challenges/{slug}"): signed_in(404, anonymous=TO_SIGN_IN, path="/challenges/no-such-challenge"),
    ("GET", "/interviews/{interview_id}/workspace"): signed_in(404, anonymous=TO_SIGN_IN,
                                                               path="/interviews/999999999/workspace"),
    ("GET", "/challenges/{slug}/draft"): signed_in(404, anonymous=TO_SIGN_IN, path="/challenges/no-such/draft"),
    ("POST", "/challenges/{slug}/draft"): signed_in(404, anonymous=TO_SIGN_IN, path="/challenges/no-such/draft",
                                                    json={"files": {}}),
    ("POST", "/challenges/{slug}/draft/form"): signed_in(404, anonymous=TO_SIGN_IN,
                                                         path="/challenges/no-such/draft/form"),
    ("POST", "/challenges/{slug}/attempts"): signed_in(404, anonymous=TO_SIGN_IN, path="/challenges/no-such/attempts"),
    ("GET", "/challenges/{slug}/attempts/{attempt_id}/panel"): signed_in(
        404, anonymous=TO_SIGN_IN, path="/challenges/no-such/attempts/999999999/panel"),
    ("GET", "/challenges/{slug}/attempts/{attempt_id}/diff"): signed_in(
        404, anonymous=TO_SIGN_IN, path="/challenges/no-such/attempts/999999999/diff"),
    ("POST", "/challenges/{slug}/attempts/{attempt_id}/cancel"): signed_in(
        404, anonymous=TO_SIGN_IN, path="/challenges/no-such/attempts/999999999/cancel"),
    ("POST", "/challenges/{slug}/attempts/{attempt_id}/restore"): signed_in(
        404, anonymous=TO_SIGN_IN, path="/challenges/no-such/attempts/999999999/restore"),
    ("POST", "/challenges/{slug}/hint"): signed_in(404, anonymous=TO_SIGN_IN, path="/challenges/no-such/hint"),
    ("POST", "/challenges/{slug}/reset"): signed_in(404, anonymous=TO_SIGN_IN, path="/challenges/no-such/reset"),
    ("GET", "/challenges/{slug}/download"): signed_in(404, anonymous=TO_SIGN_IN, path="/challenges/no-such/download"),
    ("POST", "/interviews/{interview_id}/finish"): signed_in(404, anonymous=TO_SIGN_IN,
                                                            path="/interviews/999999999/finish"),
    ("POST", "/challenges/{slug}/events"): signed_in(404, anonymous=TO_SIGN_IN, path="/challenges/no-such/events",
                                                     json={"kind": "paste"}),
    # Coaching: rating tips, the ratings per rule, the reports
    ("POST", "/api/tips/{tip_id}/rating"): signed_in(
        404, anonymous=401, path="/api/tips/999999999/rating", json={"helpful": True}
    ),
    ("POST", "/tips/{tip_id}/rating"): signed_in(
        404, anonymous=TO_SIGN_IN, path="/tips/999999999/rating", form={"helpful": "true"}
    ),
    ("GET", "/admin/coaching"): Expect(TO_SIGN_IN, 403, 403, 200),
    ("GET", "/coaching/challenges/{slug}/report"): signed_in(
        404, anonymous=TO_SIGN_IN, path="/coaching/challenges/no-such-scenario/report"
    ),
    ("GET", "/coaching/interviews/{interview_id}/report"): signed_in(
        404, anonymous=TO_SIGN_IN, path="/coaching/interviews/999999999/report"
    ),
}
