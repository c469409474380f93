"""The corpus: each candidate note gets a block in the sample's shape with the property its case calls for."""

from __future__ import annotations

import pytest

from app.coaching.composer import compose, read_notes
from app.coaching.tip import Tip

from .conftest import evidence, facts
from .notes_corpus import CORPUS, CorpusNote
from .shape import assert_block_shape


def _answer(note: CorpusNote) -> list[Tip]:
    scenario = facts(note.slug)
    readings = read_notes({note.question: note.text}, [q for q, _text in scenario.questions])
    tips = compose(readings=readings, evidence=evidence(note.slug, note.variant), history=None, guard=scenario.guard)
    return [t for t in tips if t.note == note.question]


def test_corpus_is_large_and_varied() -> None:
    assert len(CORPUS) >= 40
    kinds = {p.split(":")[0] for note in CORPUS for p in note.expect}
    assert {"contradicts", "supports", "unverified", "vague", "method", "grounded", "component"} <= kinds
    assert {note.slug for note in CORPUS} == {"warm-up", "leaky-mask", "attention-zoo", "label-trouble",
                                              "block-party", "training-wheels", "sampler-says", "deep-end",
                                              "norm-and-gate", "cache-drift", "rotary-road", "nucleus-and-schedule",
                                              "llama-deep-end"}


@pytest.mark.parametrize("note", CORPUS, ids=[f"{n.slug}:{n.text[:30]}" for n in CORPUS])
def test_corpus_note_gets_an_answer_with_its_property(note: CorpusNote) -> None:
    blocks = _answer(note)
    if "no-block" in note.expect:
        assert blocks == []
        return
    assert len(blocks) == 1
    tip = blocks[0]
    assert_block_shape(tip, facts(note.slug).guard)
    for prop in note.expect:
        name, _, arg = prop.partition(":")
        if name == "contradicts":
            assert tip.rules[0] == "note.claim-contradicted", tip.rules
            assert "still fails" in tip.framing
        elif name == "supports":
            assert "note.claim-supported" in tip.rules and "note.claim-contradicted" not in tip.rules, tip.rules
        elif name == "unverified":
            assert tip.rules[0] == "note.claim-unverified", tip.rules
        elif name == "vague":
            assert "note.vague" in tip.rules, tip.rules
        elif name == "method":
            assert f"note.method.{arg}" in tip.rules, tip.rules
        elif name == "skipped":
            assert "note.method-skipped" in tip.rules, tip.rules
        elif name == "grounded":
            run = evidence(note.slug, note.variant).training
            assert run is not None and run.init_loss is not None and run.final_val_loss is not None
            text = " ".join(tip.steps)
            assert f"{run.init_loss:.2f}" in text and f"{run.final_val_loss:.2f}" in text, tip.steps
        elif name == "component":
            assert tip.component == arg, (tip.component, tip.rules)
        else:
            raise AssertionError(f"unknown property {prop}")
