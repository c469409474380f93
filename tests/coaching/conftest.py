"""Coaching fixtures: real gradings of every built-in's starter, single-bug mutants and a partial fix.

They come from fixtures/builtin_gradings.json (written by build_gradings.py from real sandboxed
gradings), so the coach is tested on realistic results without grading again in every run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from app.coaching.evidence import Evidence, ScenarioFacts, evidence_for, facts_for
from app.engine.builtin import find_builtin
from app.grading.result import GradeResult

FIXTURE = Path(__file__).parent / "fixtures" / "builtin_gradings.json"


@dataclass(frozen=True)
class Graded:
    slug: str
    variant: str  # "starter", "mutant:<bug id>" or "partial"
    bugs_left: tuple[str, ...]
    result: GradeResult


@cache
def gradings() -> dict[str, dict[str, Graded]]:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return {slug: {name: Graded(slug, name, tuple(v["bugs_left"]), GradeResult.model_validate(v["result"]))
                   for name, v in variants.items()} for slug, variants in data.items()}


def graded(slug: str, variant: str) -> Graded:
    return gradings()[slug][variant]


@cache
def facts(slug: str) -> ScenarioFacts:
    package = find_builtin(slug)
    assert package is not None
    return facts_for(package.to_dict(), package.content_hash)


def evidence(slug: str, variant: str, *, kind: str = "submit") -> Evidence:
    g = graded(slug, variant)
    result = g.result if kind == "submit" else g.result.model_copy(
        update={"tests": [t for t in g.result.tests if t.public]})
    return evidence_for(attempt_kind=kind, status=result.status, result=result, error=None, facts=facts(slug))


@pytest.fixture(scope="session")
def all_gradings() -> dict[str, dict[str, Graded]]:
    return gradings()


# Page and API fixtures (the app on the rolled-back session, accounts with passwords).
from web.support import fast_password_hashing, make_account, web_app, web_client  # noqa: E402, F401
