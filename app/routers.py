"""Every router of every domain, included in one place so the route table test can see them all."""

from __future__ import annotations

from fastapi import FastAPI


def include_all(app: FastAPI) -> None:
    """Attach each domain's routers and error handlers to the app."""
    # Domains add their routers here as they land (one import and one include each).
    from app.attempts import api as attempts_api
    from app.auth import api as auth_api
    from app.coaching import api as coaching_api
    from app.coaching import views as coaching_views
    from app.interviews import api as interviews_api
    from app.interviews.live import api as live_api
    from app.ops import routes as ops_routes
    from app.scenarios import admin_api as scenarios_admin_api
    from app.scenarios import api as scenarios_api
    from app.web import account as web_account
    from app.web import admin as web_admin
    from app.web import admin_audit as web_admin_audit
    from app.web import admin_bugs as web_admin_bugs
    from app.web import admin_editor as web_admin_editor
    from app.web import admin_scenarios as web_admin_scenarios
    from app.web import admin_versions as web_admin_versions
    from app.web import candidate as web_candidate
    from app.web import compare as web_compare
    from app.web import interviewer as web_interviewer
    from app.web import invite as web_invite
    from app.web import review as web_review
    from app.web import review_actions as web_review_actions
    from app.web import rubric_admin as web_rubric_admin
    from app.web import sign_up as web_sign_up
    from app.web import system as web_system
    from app.web import workspace as web_workspace
    from app.web import workspace_actions as web_workspace_actions

    app.include_router(scenarios_api.router)
    app.include_router(scenarios_admin_api.router)
    app.include_router(attempts_api.router)
    app.include_router(auth_api.router)
    app.include_router(interviews_api.router)
    app.include_router(live_api.router)
    app.include_router(live_api.pages)
    app.include_router(web_system.router)
    app.include_router(ops_routes.router)
    app.include_router(web_account.router)
    app.include_router(web_candidate.router)
    app.include_router(web_interviewer.router)
    app.include_router(web_admin.router)
    app.include_router(web_admin_audit.router)
    app.include_router(web_admin_scenarios.router)
    app.include_router(web_admin_versions.router)
    app.include_router(web_admin_editor.router)
    app.include_router(web_admin_bugs.router)
    app.include_router(web_invite.router)
    app.include_router(web_review.router)
    app.include_router(web_review_actions.router)
    app.include_router(web_compare.router)
    app.include_router(web_rubric_admin.router)
    app.include_router(web_sign_up.router)
    app.include_router(web_workspace.router)
    app.include_router(web_workspace_actions.router)
    app.include_router(coaching_api.router)
    app.include_router(coaching_views.router)
