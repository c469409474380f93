"""A large paste keeps fingerprints of its pieces, never its text (the solution-text signal reads them)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.support import Account

from app.engine.builtin import find_builtin
from app.scenarios.models import ScenarioVersion
from app.workspace.events import paste_pieces, piece_hash
from app.workspace.models import WorkspaceEvent

from .helpers import page_csrf, signed_in

PAGE = "/challenges/leaky-mask"


def test_a_paste_stores_the_fingerprints_of_its_pieces_and_not_its_text(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    _, token = page_csrf(client, PAGE)
    package = find_builtin("leaky-mask")
    assert package is not None
    text = package.solution_files["model.py"]
    body = {"kind": "paste", "detail": {"file": "model.py", "chars": len(text), "lines": 9, "text": text}}
    assert client.post(f"{PAGE}/events", json=body, headers={"X-CSRF-Token": token}).status_code == 204
    bad = {"kind": "paste", "detail": {"file": "model.py", "chars": 900, "lines": 1, "text": ["not", "text"]}}
    assert client.post(f"{PAGE}/events", json=bad, headers={"X-CSRF-Token": token}).status_code == 422
    stored = db.scalars(select(WorkspaceEvent).where(WorkspaceEvent.user_id == me.user.id)).one()
    assert set(stored.detail) == {"file", "chars", "lines", "pieces"}
    pieces = stored.detail["pieces"].split()
    assert pieces == paste_pieces(text)
    assert "torch" not in stored.detail["pieces"]
    # a line, a comment and a long name of the pasted text are each one fingerprint
    line = "mask = torch.tril(torch.ones(config.block_size, config.block_size))"
    assert line in text and piece_hash(line) in pieces and piece_hash("   " + line) in pieces
    assert piece_hash("block_size") in pieces


def test_pieces_are_whole_lines_comments_and_long_names() -> None:
    pieces = set(paste_pieces("x = y  # add one to y\n\nreturn total_weight\n"))
    assert pieces == {piece_hash(p) for p in ("x = y  # add one to y", "add one to y", "return total_weight",
                                              "total_weight")}
