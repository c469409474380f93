"""Never leaks the fix: every built-in's starter, single-bug mutants and a partial fix, with varied notes and
histories, through the coach. No tip contains a planted bug's old or new line, a solution line that differs
from the starter, a fix sentence (or its code), a hidden test id, a bug id or a bug title."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.coaching import lexicon
from app.coaching.composer import compose, read_notes
from app.coaching.history import History, PastAttempt, summarise
from app.engine.builtin import find_builtin
from app.engine.package import ScenarioPackage

from .conftest import Graded, evidence, facts, gradings
from .notes_corpus import SAMPLE
from .shape import assert_block_shape

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def note_sets(package: ScenarioPackage) -> list[dict[str, str]]:
    """Notes of every sort: the sample, none, sweeping claims, a claim per planted bug in the candidate's words,
    the bugs' own titles, and notes that quote the fix itself."""
    kinds = [b.kind for b in package.bugs]
    return [
        SAMPLE,
        {},
        {"find": "Fixed all the bugs.", "verify": "Verified everything against the baseline.", "approach": "stuff"},
        {"find": " ".join(f"I fixed {lexicon.KINDS[k][0]}." for k in kinds),
         "verify": "I didn't verify " + " or ".join(lexicon.KINDS[k][0] for k in kinds) + ".",
         "approach": "Overfit one batch, compared with ln V, perturbed later tokens, printed shapes."},
        {"find": " ".join(f"Caught: {b.title}." for b in package.bugs),
         "verify": "Trained for a few steps; loss 0.5 at the end, ln V 4.17 at the start."},
        {"find": " ".join(f"{b.explanation.get('fix', '')}" for b in package.bugs),
         "verify": " ".join(edit.new for b in package.bugs for edit in b.edits)[:2000],
         "approach": " ".join(edit.old for b in package.bugs for edit in b.edits)[:2000]},
    ]


def histories(g: Graded) -> list[History | None]:
    current = summarise(100, "submit", g.result.status, NOW, g.result)
    earlier = [summarise(90 + i, "submit", g.result.status, NOW - timedelta(seconds=40 * (3 - i)), g.result)
               for i in range(2)]
    fewer = PastAttempt(95, "submit", "failed", NOW - timedelta(minutes=20),
                        fixed=(0, len(g.result.bugs)), failing_components=("loss",))
    run = PastAttempt(96, "run", "failed", NOW - timedelta(minutes=5))
    return [None, History(previous=tuple(earlier), current=current),
            History(previous=(fewer, run), current=current)]


def forbidden_names(package: ScenarioPackage) -> list[str]:
    return [b.id.lower() for b in package.bugs] + [b.title.lower() for b in package.bugs]


CASES = [(slug, variant) for slug, variants in sorted(gradings().items()) for variant in sorted(variants)]


@pytest.mark.parametrize(("slug", "variant"), CASES, ids=[f"{s}:{v}" for s, v in CASES])
def test_coach_never_leaks_the_fix(slug: str, variant: str) -> None:
    package = find_builtin(slug)
    assert package is not None
    scenario = facts(slug)
    order = [q for q, _text in scenario.questions]
    names = forbidden_names(package)
    written: list[Any] = []
    for kind in ("submit", "run"):
        proof = evidence(slug, variant, kind=kind)
        for notes in note_sets(package):
            for history in histories(gradings()[slug][variant]):
                tips = compose(readings=read_notes(notes, order), evidence=proof, history=history,
                               guard=scenario.guard)
                written += tips
                assert [t.note for t in tips if t.note] == [q for q in order if notes.get(q, "").strip()]
                for tip in tips:
                    assert_block_shape(tip, scenario.guard)
                    text = " ".join(tip.texts()).lower()
                    assert not [name for name in names if name in text], tip
    assert written  # the coach answered every case with something
    rules = {rule for tip in written for rule in tip.rules}
    assert {"note.claim-contradicted", "progress.repeated-failure", "habit.rapid-fire"} <= rules
    if any(b.fixed for b in gradings()[slug][variant].result.bugs):
        assert "progress.improved" in rules
