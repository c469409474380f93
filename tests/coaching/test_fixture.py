"""The stored gradings still describe the built-in scenarios (regenerate with build_gradings.py when not)."""

from __future__ import annotations

from app.engine.builtin import builtin_packages
from app.engine.interfaces import INTERFACES

from .conftest import gradings


def test_fixture_matches_builtins() -> None:
    data = gradings()
    packages = {p.slug: p for p in builtin_packages()}
    assert set(data) == set(packages)
    for slug, package in packages.items():
        specs = INTERFACES[package.interface].specs  # the tests of the package's own interface
        bug_ids = [b.id for b in package.bugs]
        assert set(data[slug]) == {"starter", "partial", *(f"mutant:{b}" for b in bug_ids)}, slug
        for name, g in data[slug].items():
            assert [b.id for b in g.result.bugs] == bug_ids, (slug, name)
            assert {t.id for t in g.result.tests} <= set(specs), (slug, name)
            unfixed = {b.id for b in g.result.bugs if not b.fixed}
            # A bug whose tests another remaining bug masks can read as fixed; a lone mutant's never does.
            assert unfixed >= set(g.bugs_left) if name.startswith("mutant:") else unfixed, (slug, name)
            assert g.result.status == "failed" and g.result.training is not None, (slug, name)
