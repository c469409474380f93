"""The password rule: long enough and hard to guess, with a message that says why and what would do."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy.orm import Session
from web.support import PASSWORD, Account

from app.users import service
from app.users.passwords import password_problem


@pytest.mark.parametrize(("weak", "why"), [
    ("password", "top-10 common password"),
    ("aaaaaaaa", 'Repeats like "aaa" are easy to guess'),
    ("12345678", "top-10 common password"),
    ("qwertyuiop", "common password"),
    ("Password1!", "similar to a commonly used password"),
])
def test_guessable_passwords_are_refused_with_the_reason_and_what_would_do(weak: str, why: str) -> None:
    problem = password_problem(weak)
    assert problem is not None
    assert problem.startswith("This password is too easy to guess.") and why in problem
    assert "three or four unrelated words, or 12 or more random characters" in problem


def test_length_limits_come_first() -> None:
    assert (password_problem("x") or "").startswith("Password must be at least 8 characters.")
    assert password_problem("correct horse battery " * 12) == "Password must be at most 256 characters."


def test_a_password_made_of_the_email_is_refused() -> None:
    assert password_problem("marguerite.okonkwo", email="marguerite.okonkwo@example.com") is not None
    assert password_problem("marguerite.okonkwo") is None  # the same text is fine for someone else


@pytest.mark.parametrize("strong", [PASSWORD, "velvet tractor orbit lemon", "k7#Qp2!vZx9m"])
def test_phrases_and_random_characters_are_accepted(strong: str) -> None:
    assert password_problem(strong) is None


def test_create_user_and_change_password_apply_the_rule(db: Session, make_account: Callable[..., Account]) -> None:
    with pytest.raises(service.UserError, match="too easy to guess"):
        service.create_user(session=db, email="weak-one@example.com", password="aaaaaaaa", role="candidate")
    account = make_account("candidate")
    with pytest.raises(service.UserError, match="too easy to guess"):
        service.change_password(session=db, user=account.user, current=PASSWORD, new="12345678", confirm="12345678")
