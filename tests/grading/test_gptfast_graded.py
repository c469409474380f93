"""A model written the Meta / gpt-fast way, graded end to end against every built-in of its interface: its
rotary angles are a complex `freqs_cis` buffer registered on the model (the harness must keep it complex
when it casts the model), one head at a time with a hand-written softmax, and PyTorch's default
initialisation (whose initial loss is further from ln V than a small-std initialisation's). Each built-in's
solution with model.py replaced by the fixture (tests/engine/fixtures/llama_shapes/gptfast_complex.py for
llama-v1, tests/engine/fixtures/shapes/gptfast_complex.py for gpt-v1) passes, every bug fixed. Built-ins whose
solutions share the other files give the harness one job, run once (memo_runner)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engine.builtin import builtin_packages
from app.engine.package import ScenarioPackage
from app.grading.grader import grade_files

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).resolve().parents[1] / "engine" / "fixtures"
MODEL = {"llama-v1": FIXTURES / "llama_shapes" / "gptfast_complex.py",
         "gpt-v1": FIXTURES / "shapes" / "gptfast_complex.py"}
BUILTINS = sorted((p.interface, p.slug) for p in builtin_packages() if p.interface in MODEL)


def _package(slug: str) -> ScenarioPackage:
    return next(p for p in builtin_packages() if p.slug == slug)


def test_every_builtin_of_both_interfaces_is_graded():
    assert {interface for interface, _ in BUILTINS} == set(MODEL)


@pytest.mark.parametrize(("interface", "slug"), BUILTINS, ids=[slug for _, slug in BUILTINS])
def test_gptfast_model_passes_every_builtin(interface, slug, memo_runner):
    package = _package(slug)
    files = {**package.solution_files, "model.py": MODEL[interface].read_text()}
    report = grade_files(package=package, files=files, runner=memo_runner)
    assert report.error is None
    assert report.status == "passed", [(t.id, t.status, t.message) for t in report.tests
                                       if t.status not in ("passed", "not_applicable")]
    assert [(b.id, b.fixed) for b in report.bugs] == [(b.id, True) for b in package.bugs]
