"""The knowledge base covers every bug kind of the catalog and every hidden test's component, and leaks nothing."""

from __future__ import annotations

import pytest

from app.coaching import knowledge, lexicon, methods_knowledge
from app.coaching.guard import guard_for
from app.coaching.kinds_knowledge import KIND_KNOWLEDGE
from app.coaching.rules import RULES
from app.engine.builtin import builtin_packages
from app.engine.interfaces import INTERFACES
from app.engine.kinds import BUG_KINDS
from app.grading.result import COMPONENTS

# Every interface's tests, through the registry: a kind's tests are those of whichever interface plants it.
SPECS = {test_id: spec for interface in INTERFACES.values() for test_id, spec in interface.specs.items()}


def test_every_bug_kind_has_knowledge_and_words() -> None:
    assert set(KIND_KNOWLEDGE) == set(BUG_KINDS)
    assert set(lexicon.KINDS) == set(BUG_KINDS)
    for kind, entry in KIND_KNOWLEDGE.items():
        assert entry.component in COMPONENTS, kind
        assert 2 <= len(entry.checks) <= 4, kind
        assert set(entry.tests) <= set(SPECS), f"{kind}: unknown test ids {set(entry.tests) - set(SPECS)}"


def test_every_hidden_test_component_has_advice_and_words() -> None:
    components = {spec.component for spec in SPECS.values()}
    assert components <= set(knowledge.COMPONENT_ADVICE) == set(COMPONENTS)
    assert set(lexicon.COMPONENTS) == set(COMPONENTS) == set(knowledge.COMPONENT_NAMES)
    for advice in knowledge.COMPONENT_ADVICE.values():
        assert 3 <= len(advice.steps) <= 5
        for variant in advice.variants():
            assert 3 <= len(variant.steps) <= 5


def test_every_method_the_reader_knows_has_advice_a_name_and_a_rule() -> None:
    assert set(lexicon.METHODS) == set(methods_knowledge.METHOD_ADVICE) == set(methods_knowledge.METHOD_NAMES)
    assert set(methods_knowledge.METHOD_SUGGESTIONS) <= set(lexicon.METHODS)
    assert {f"note.method.{m}" for m in lexicon.METHODS} <= set(RULES)


def _knowledge_texts() -> list[str]:
    texts: list[str] = []
    advice = [*knowledge.COMPONENT_ADVICE.values(), *methods_knowledge.METHOD_ADVICE.values(),
              *knowledge.ERROR_ADVICE.values(), knowledge.TRAINING_RUN_ADVICE, knowledge.INTERFACE_ADVICE]
    for item in (variant for a in advice for variant in a.variants()):
        texts += [item.framing, item.pro_tip, *item.steps]
    for entry in KIND_KNOWLEDGE.values():
        texts += [entry.name, *entry.checks]
    return texts + list(methods_knowledge.METHOD_SUGGESTIONS.values())


@pytest.mark.parametrize("package", builtin_packages(), ids=lambda p: p.slug)
def test_no_knowledge_text_comes_close_to_a_builtin_fix(package) -> None:
    guard = guard_for(package)
    assert guard.lines and guard.fixes  # the guard knows what to look for
    leaks = {text: guard.leaks(text) for text in _knowledge_texts() if guard.leaks(text)}
    assert leaks == {}
