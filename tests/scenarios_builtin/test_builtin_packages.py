"""Static checks on the built-in scenario packages: they parse, plant real bugs, and cover the catalog."""

from __future__ import annotations

import pytest

from app.engine.builtin import builtin_dirs
from app.engine.kinds import BUG_KINDS
from app.engine.package import COMPONENTS, ScenarioPackage, load_package

REFLECTION_QUESTIONS = {"find", "verify", "approach"}
PACKAGES = {path.name: load_package(path) for path in builtin_dirs()}


def _packages() -> list[ScenarioPackage]:
    return list(PACKAGES.values())


@pytest.mark.parametrize("slug", sorted(PACKAGES))
def test_builtin_slug_matches_its_directory(slug: str) -> None:
    assert PACKAGES[slug].slug == slug


@pytest.mark.parametrize("slug", sorted(PACKAGES))
def test_builtin_bug_kinds_come_from_the_catalog(slug: str) -> None:
    unknown = [b.kind for b in PACKAGES[slug].bugs if b.kind not in BUG_KINDS]
    assert unknown == []


@pytest.mark.parametrize("slug", sorted(PACKAGES))
def test_builtin_asks_the_three_reflection_questions(slug: str) -> None:
    ids = {q["id"] for q in PACKAGES[slug].questions}
    assert ids >= REFLECTION_QUESTIONS


@pytest.mark.parametrize("slug", sorted(PACKAGES))
def test_builtin_each_mutant_differs_from_solution_and_compiles(slug: str) -> None:
    pkg = PACKAGES[slug]
    for bug in pkg.bugs:
        mutant = pkg.mutant_files(bug.id)
        assert mutant != pkg.solution_files, f"bug {bug.id} changes nothing"
        for name, text in mutant.items():
            compile(text, f"{slug}/{bug.id}/{name}", "exec")
    for name, text in {**pkg.solution_files, **pkg.starter_files}.items():
        compile(text, f"{slug}/{name}", "exec")


@pytest.mark.parametrize("slug", sorted(PACKAGES))
def test_builtin_brief_does_not_quote_planted_or_fixed_code(slug: str) -> None:
    pkg = PACKAGES[slug]
    brief = pkg.brief
    for bug in pkg.bugs:
        for edit in bug.edits:
            for line in (edit.old + "\n" + edit.new).splitlines():
                code = line.split("#")[0].strip()
                if len(code) >= 12:
                    assert code not in brief, f"brief quotes code from bug {bug.id}: {code!r}"


def test_builtins_plant_at_least_25_distinct_catalog_kinds() -> None:
    kinds = {b.kind for pkg in _packages() for b in pkg.bugs}
    assert len(kinds) >= 25, sorted(kinds)


def test_builtins_cover_all_six_components() -> None:
    components = {b.component for pkg in _packages() for b in pkg.bugs}
    assert components == set(COMPONENTS)


def test_builtins_range_from_easy_two_bug_warm_up_to_hard_with_training_and_generation_bugs() -> None:
    easy = [p for p in _packages() if p.difficulty == "easy"]
    hard = [p for p in _packages() if p.difficulty == "hard"]
    assert any(len(p.bugs) == 2 for p in easy)
    assert any(len(p.bugs) >= 5 and {"training", "generation"} <= {b.component for b in p.bugs} for p in hard)
