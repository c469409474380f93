"""The validation reports the built-ins ship with (app/scenarios_builtin/_reports): one per built-in, made
from its current content by the current engine, and what validating it again computes."""

from __future__ import annotations

import json

import pytest

from app.engine.builtin import builtin_packages, find_builtin, shipped_report_path
from app.engine.interfaces import get_interface
from app.engine.shared.verdicts import FAILED
from app.engine.validator import validate_package
from app.grading.reference import load_cached, load_shipped
from app.sandbox.bwrap_runner import BwrapRunner

SHIP = ".venv/bin/dojo scenarios validate --ship"
# The smallest built-in of each interface, validated again in the sandbox on every run.
RECOMPUTED = {"gpt-v1": "warm-up", "llama-v1": "norm-and-gate", "pipeline-v1": "padded-truths"}


@pytest.mark.parametrize("pkg", builtin_packages(), ids=lambda pkg: pkg.slug)
def test_every_builtin_ships_a_current_valid_report(pkg) -> None:
    shipped = load_shipped(pkg)
    assert shipped is not None, (
        f"{shipped_report_path(pkg.slug)} is missing or was made from other content or by another engine: "
        f"run `{SHIP}` (it validates the stale ones) and commit the reports")
    assert shipped.valid and shipped.complete, shipped.problems
    assert {b.id for b in shipped.bugs} == {b.id for b in pkg.bugs}


def test_a_report_of_other_content_or_another_engine_is_not_used(tmp_path, monkeypatch) -> None:
    pkg = find_builtin("warm-up")
    assert pkg is not None
    document = json.loads(shipped_report_path(pkg.slug).read_text(encoding="utf-8"))
    monkeypatch.setattr("app.grading.reference.shipped_report_path", lambda slug: tmp_path / f"{slug}.json")
    from app.core.settings import get_settings
    monkeypatch.setattr(get_settings(), "reference_cache_dir", str(tmp_path / "empty-cache"))

    (tmp_path / "warm-up.json").write_text(json.dumps(document), encoding="utf-8")
    assert load_cached(pkg) is not None  # the shipped report, found through the (empty) cache

    for field, value in (("content_hash", "0" * 64), ("engine", "another-engine")):
        (tmp_path / "warm-up.json").write_text(json.dumps({**document, field: value}), encoding="utf-8")
        assert load_shipped(pkg) is None and load_cached(pkg) is None
    (tmp_path / "warm-up.json").write_text("{not json", encoding="utf-8")
    assert load_shipped(pkg) is None


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.parametrize("interface", sorted(RECOMPUTED))
def test_validating_again_computes_the_shipped_report(interface: str) -> None:
    """The shipped reports are the product's own validation, reproducible here: the same matrix, masking
    pairs and verdicts, and a solution measured now passes every test against the shipped reference."""
    pkg = find_builtin(RECOMPUTED[interface])
    assert pkg is not None and pkg.interface == interface
    shipped = load_shipped(pkg)
    assert shipped is not None and shipped.reference is not None
    fresh = validate_package(package=pkg, runner=BwrapRunner())
    assert fresh.reference is not None, fresh.problems
    assert fresh.to_dict(measurements=False) == shipped.to_dict(measurements=False)
    verdicts = get_interface(interface).run_checks(fresh.reference, shipped.reference, files=pkg.files)
    assert [v.id for v in verdicts if v.status == FAILED] == []


@pytest.mark.bwrap  # the command picks the sandbox runner before it looks at anything
def test_ship_validates_only_stale_reports_and_refuses_what_is_not_a_builtin(capsys) -> None:
    from app.grading.commands import validate_command

    assert validate_command(None, as_json=False, ship_builtins=True) == 0
    assert capsys.readouterr().out == f"{len(builtin_packages())} shipped report(s) current; validating 0\n"
    assert validate_command("no-such-builtin", as_json=False, ship_builtins=True) == 2
    assert "no-such-builtin is not a built-in scenario's slug" in capsys.readouterr().err
