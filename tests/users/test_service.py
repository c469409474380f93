"""User administration rules: admins cannot lock themselves out; roles are checked."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy.orm import Session
from web.support import Account

from app.users import service


def test_admin_cannot_deactivate_themselves(db: Session, make_account: Callable[..., Account]) -> None:
    admin = make_account("admin").user
    with pytest.raises(service.UserError, match="your own account"):
        service.set_active(session=db, user=admin, actor=admin, active=False)
    assert admin.is_active is True


def test_admin_cannot_remove_their_own_admin_role(db: Session, make_account: Callable[..., Account]) -> None:
    admin = make_account("admin").user
    with pytest.raises(service.UserError, match="own admin role"):
        service.set_role(session=db, user=admin, actor=admin, role="candidate")
    assert admin.role == "admin"


def test_unknown_role_is_refused(db: Session, make_account: Callable[..., Account]) -> None:
    admin, target = make_account("admin").user, make_account("candidate").user
    with pytest.raises(service.UserError, match="Unknown role"):
        service.set_role(session=db, user=target, actor=admin, role="superuser")
    assert target.role == "candidate"


def test_admin_changes_another_users_role_and_active_flag(db: Session, make_account: Callable[..., Account]) -> None:
    admin, target = make_account("admin").user, make_account("candidate").user
    service.set_role(session=db, user=target, actor=admin, role="interviewer")
    service.set_active(session=db, user=target, actor=admin, active=False)
    assert (target.role, target.is_active) == ("interviewer", False)


def test_list_users_puts_admins_first(db: Session, make_account: Callable[..., Account]) -> None:
    candidate, admin = make_account("candidate").user, make_account("admin").user
    users = service.list_users(session=db)
    assert users.index(admin) < users.index(candidate)
