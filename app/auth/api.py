"""JSON endpoints for API clients: exchange credentials for a bearer token, inspect, revoke."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field

from app.auth import tokens
from app.auth.deps import CurrentUser, SessionDep
from app.auth.login import authenticate, client_ip, login_limiter

router = APIRouter(prefix="/api/auth", tags=["auth"])


class TokenRequest(BaseModel):
    email: str = Field(max_length=254)
    password: str = Field(max_length=256)


class TokenResponse(BaseModel):
    access_token: str
    token_type: str = "bearer"


class Me(BaseModel):
    id: int
    email: str
    role: str
    display_name: str


@router.post("/token", response_model=TokenResponse, name="api_issue_token")
def issue_token(body: TokenRequest, request: Request, session: SessionDep) -> TokenResponse:
    """Exchange email and password for a bearer token (rate-limited like the sign-in form)."""
    # LoginThrottled and LoginFailed are DojoErrors: the one error handler answers them as JSON.
    user = authenticate(
        session=session, limiter=login_limiter(request), ip=client_ip(request),
        email=body.email, password=body.password,
    )
    token = tokens.issue_token(session=session, user=user)
    session.commit()
    return TokenResponse(access_token=token)


@router.get("/me", response_model=Me, name="api_me")
def me(user: CurrentUser) -> Me:
    """Who the request is authenticated as."""
    return Me(id=user.id, email=user.email, role=user.role, display_name=user.display_name)


@router.delete("/token", status_code=204, name="api_revoke_token")
def revoke_token(request: Request, user: CurrentUser, session: SessionDep) -> Response:
    """Revoke the bearer token this request was made with."""
    token_row = getattr(request.state, "api_token", None)
    if token_row is None:
        raise HTTPException(400, "Send the token to revoke as 'Authorization: Bearer <token>'.")
    tokens.revoke_token(session=session, token_row=token_row)
    session.commit()
    return Response(status_code=204)
