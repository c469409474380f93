"""Coaching on the llama-v1 interface: its bug kinds (catalog section H), its words, its advice and its gradings."""

from __future__ import annotations

import pytest

from app.coaching import knowledge
from app.coaching.composer import compose, read_notes
from app.coaching.evidence import evidence_for
from app.coaching.kinds_knowledge import KIND_KNOWLEDGE, stand_ins
from app.coaching.lexicon import KINDS
from app.coaching.note_tips import note_tip
from app.coaching.reading import read_note
from app.engine.interfaces import INTERFACES
from app.engine.kinds import BUG_KINDS
from app.grading.result import GradeResult

from .conftest import facts

LLAMA = INTERFACES["llama-v1"].specs
GPT = INTERFACES["gpt-v1"].specs
ALL_SPECS = {test_id: spec for i in INTERFACES.values() for test_id, spec in i.specs.items()}
SECTION_H = sorted(kind for kind, row in BUG_KINDS.items() if row.startswith("H"))
ROPE_OFFSET_NOTE = "I found that the RoPE ignores the KV cache offset."


def _result(failing: set[str], passing: set[str]) -> GradeResult:
    tests = [{"id": t, "component": LLAMA[t].component, "passed": t in passing, "message": "m",
              "public": LLAMA[t].public} for t in sorted(failing | passing)]
    return GradeResult.model_validate({"status": "failed", "tests": tests})


def _evidence(failing: set[str], passing: set[str], slug: str = "norm-and-gate"):
    return evidence_for(attempt_kind="submit", status="failed", result=_result(failing, passing), error=None,
                        facts=facts(slug))


def test_section_h_is_every_new_kind() -> None:
    assert len(SECTION_H) == 15 and "rope-ignores-offset" in SECTION_H and "cosine-schedule-wrong" in SECTION_H


@pytest.mark.parametrize("kind", SECTION_H)
def test_each_new_kind_has_knowledge_caught_by_hidden_llama_tests(kind: str) -> None:
    entry = KIND_KNOWLEDGE[kind]
    assert entry.tests and set(entry.tests) <= set(LLAMA), kind
    assert all(not LLAMA[t].public for t in entry.tests), "the tests that catch a planted bug are hidden ones"
    assert entry.component in {LLAMA[t].component for t in entry.tests}
    assert 2 <= len(entry.checks) <= 4 and entry.name


@pytest.mark.parametrize("kind", sorted(KIND_KNOWLEDGE))
def test_every_kind_belongs_to_the_component_of_a_test_that_catches_it(kind: str) -> None:
    entry = KIND_KNOWLEDGE[kind]
    assert entry.component in {ALL_SPECS[t].component for t in entry.tests}, kind


@pytest.mark.parametrize("kind", SECTION_H)
def test_each_new_kind_is_read_back_from_each_of_its_words(kind: str) -> None:
    for phrase in KINDS[kind]:
        words = phrase.rstrip("*")
        assert kind in read_note("q", f"I looked at the {words} first.").kinds, (kind, phrase)


def test_phrases_name_one_kind_each() -> None:
    phrases = [p for words in KINDS.values() for p in words]
    assert len(phrases) == len(set(phrases))


@pytest.mark.parametrize(("text", "kinds", "components"), [
    ("The RoPE was wrong", (), {"positional"}),
    ("rotary embeddings applied to v as well", {"rope-on-values"}, {"positional"}),
    ("the kv-cache was never written", {"cache-write-wrong"}, {"generation"}),
    ("the KV cache drifted", {"kv-cache-no-mask"}, {"generation"}),
    ("GQA heads were repeated along the sequence", {"repeat-kv-wrong-axis"}, {"attention"}),
    ("grouped-query attention looked odd", {"repeat-kv-wrong-axis"}, {"attention"}),
    ("is_causal=True during decode", {"sdpa-causal-in-decode"}, {"attention", "generation"}),
    ("top-p kept one token too few", {"top-p-off-by-one"}, {"generation"}),
    ("the nucleus sampler", {"top-p-off-by-one"}, {"generation"}),
    ("RMSNorm subtracted the mean", {"rmsnorm-wrong"}, {"general"}),
    ("the SwiGLU gate was dropped", {"swiglu-gate-wrong"}, {"general"}),
    ("the warmup was broken", {"lr-schedule-wrong"}, {"training"}),
    ("the cosine schedule never reached min_lr", {"cosine-schedule-wrong"}, {"training"}),
    ("gradient accumulation weighted micro-batches by their token count",
     {"grad-accum-not-divided", "grad-accum-token-mean"}, {"training"}),
])
def test_llama_vocabulary_in_the_candidates_words(text: str, kinds: set[str], components: set[str]) -> None:
    reading = read_note("q", text)
    assert set(kinds) <= set(reading.kinds) and components <= set(reading.components), reading.explain()


def test_interface_names_are_not_components() -> None:
    reading = read_note("q", "n_kv_heads, head_dim, max_seq_len and n_heads were all set")
    assert reading.components == ()


def test_a_note_on_the_rope_and_the_cache_offset_is_read_and_answered_about_the_cache() -> None:
    reading = read_note("find", ROPE_OFFSET_NOTE)
    assert reading.kinds == ("rope-ignores-offset",)
    assert {"positional", "generation"} <= set(reading.components)
    (claim,) = reading.claims
    assert claim.verb == "found" and claim.kinds == ("rope-ignores-offset",)

    broken = _evidence({"generation.cache-matches-full-forward"}, {"positional.shift-invariant", "general.rmsnorm"})
    tip = note_tip(reading, broken)
    assert tip.component == "generation" and "note.claim-contradicted" in tip.rules
    assert "rotary positions of cached tokens" in tip.framing
    assert any("cache" in step for step in tip.steps)

    fixed = _evidence(set(), {"generation.cache-matches-full-forward", "generation.cache-chunk-after-prefix"})
    tip = note_tip(reading, fixed)
    assert tip.component == "generation" and "note.claim-supported" in tip.rules


def test_a_generic_word_stands_for_the_related_kind_the_scenario_planted() -> None:
    planted = set(facts("norm-and-gate").bug_kinds.values())
    assert stand_ins("layernorm-wrong", planted) == ("rmsnorm-eps-wrong", "rmsnorm-wrong")
    assert stand_ins("rmsnorm-wrong", planted) == ("rmsnorm-wrong",)
    assert stand_ins("top-k-broken", planted) == ("top-k-broken",)
    reading = read_note("verify", "I fixed the layer norm.")
    tip = note_tip(reading, _evidence({"general.rmsnorm-eps"}, {"general.rmsnorm"}))
    assert "RMSNorm epsilon" in tip.framing and "note.claim-contradicted" in tip.rules


@pytest.mark.parametrize(("component", "words"), [
    ("positional", ("rotary", "start_pos")),
    ("attention", ("grouped-query", "repeat_kv", "is_causal", "cache")),
    ("generation", ("KV cache", "top_p")),
    ("training", ("get_lr", "warmup", "micro-batches")),
    ("general", ("RMSNorm", "SwiGLU")),
])
def test_component_advice_speaks_of_the_llama_failure_modes(component: str, words: tuple[str, ...]) -> None:
    advice = knowledge.COMPONENT_ADVICE[component]
    llama = advice.for_tests(set(LLAMA))
    text = " ".join((llama.framing, llama.pro_tip, *llama.steps))
    assert all(word in text for word in words), (component, [w for w in words if w not in text])
    assert advice.for_tests(set(GPT)) is advice and advice.for_tests(None) is advice


def test_a_llama_grading_flows_through_facts_evidence_and_tips() -> None:
    scenario = facts("norm-and-gate")
    assert scenario.test_ids == frozenset(LLAMA)
    assert facts("leaky-mask").test_ids == frozenset(GPT)
    assert scenario.guard.test_ids >= {t.casefold() for t, s in LLAMA.items() if not s.public}
    proof = _evidence({"positional.rotary-frequencies", "general.interface"}, {"general.rmsnorm"})
    assert proof.components_failing == ("positional",) and proof.interface_failed
    tips = compose(readings=read_notes({}, []), evidence=proof, history=None, guard=scenario.guard)
    by_rule = {t.rules[0]: t for t in tips}
    assert "ModelArgs" in " ".join(by_rule["interface.failing"].steps)
    positional = next(t for t in tips if t.component == "positional")
    assert any("rotat" in step for step in positional.steps)
    assert not any(scenario.guard.tip_leaks(*t.texts()) for t in tips)
