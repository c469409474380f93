"""Coaching on the pipeline-v1 interface: its bug kinds (catalog section I), their words, the advice for its
components (data, optimizer, evaluation, checkpoint) and its versions of the loss and training advice."""

from __future__ import annotations

import pytest

from app.coaching import knowledge
from app.coaching.kinds_knowledge import KIND_KNOWLEDGE, stand_ins
from app.coaching.lexicon import KINDS
from app.coaching.reading import read_note
from app.engine.interfaces import INTERFACES
from app.engine.kinds import BUG_KINDS

PIPELINE = INTERFACES["pipeline-v1"].specs
GPT = INTERFACES["gpt-v1"].specs
SECTION_I = sorted(kind for kind, row in BUG_KINDS.items() if row.startswith("TP-"))


@pytest.mark.parametrize("kind", SECTION_I)
def test_each_pipeline_kind_has_knowledge_caught_by_hidden_pipeline_tests(kind: str) -> None:
    entry = KIND_KNOWLEDGE[kind]
    assert entry.tests and set(entry.tests) <= set(PIPELINE), kind
    assert all(not PIPELINE[t].public for t in entry.tests)
    assert entry.component in {PIPELINE[t].component for t in entry.tests}
    assert 2 <= len(entry.checks) <= 4 and entry.name


@pytest.mark.parametrize("kind", SECTION_I)
def test_each_pipeline_kind_is_read_back_from_each_of_its_words(kind: str) -> None:
    for phrase in KINDS[kind]:
        assert kind in read_note("q", f"I looked at the {phrase.rstrip('*')} first.").kinds, (kind, phrase)


@pytest.mark.parametrize(("text", "kinds"), [
    ("the loss was normalised per micro-batch instead of per token", {"accum-micro-batch-mean"}),
    ("zero_grad inside the loop wiped every micro-batch but the last", {"accum-zero-grad-inside"}),
    ("it clipped before unscale_, so the scaled gradients were clipped", {"amp-clip-before-unscale"}),
    ("the GradScaler was bypassed", {"amp-step-bypasses-scaler"}),
    ("padding in the loss", {"pad-in-loss"}),
    ("the pad id equals EOS, so the model never stops", {"eos-masked-as-pad"}),
    ("labels were shifted again in train_step", {"collate-shift-wrong"}),
    ("weight decay on biases and norm gains", {"decay-on-vectors"}),
    ("Adam with weight decay is not decoupled", {"decay-not-decoupled"}),
    ("dropout during evaluation", {"eval-dropout-on"}),
    ("the model was left in eval mode", {"eval-train-not-restored"}),
    ("evaluate built a graph", {"eval-builds-graph"}),
    ("data leakage between train and validation", {"split-leaks"}),
    ("the same order every epoch", {"shuffle-same-every-epoch"}),
    ("the last partial batch was dropped", {"epoch-drops-examples"}),
    ("the optimizer state was never restored", {"resume-optimizer-state-lost"}),
    ("the global step was off by one on resume", {"resume-step-off-by-one"}),
    ("the RNG state was not saved", {"resume-rng-lost"}),
])
def test_pipeline_vocabulary_in_the_candidates_words(text: str, kinds: set[str]) -> None:
    reading = read_note("q", text)
    assert kinds <= set(reading.kinds), reading.explain()


def test_a_generic_word_stands_for_the_planted_pipeline_kind() -> None:
    assert stand_ins("grad-accum-not-divided", {"accum-micro-batch-mean"}) == ("accum-micro-batch-mean",)
    assert stand_ins("ignore-index-wrong", {"pad-in-loss", "split-leaks"}) == ("pad-in-loss",)
    assert stand_ins("dropout-at-eval", {"eval-dropout-on"}) == ("eval-dropout-on",)
    assert stand_ins("label-double-shift", {"collate-shift-wrong"}) == ("collate-shift-wrong",)


@pytest.mark.parametrize(("component", "words"), [
    ("data", ("split", "epoch", "val_fraction")),
    ("optimizer", ("weight_decay", "AdamW", "one-dimensional")),
    ("evaluation", ("eval mode", "model.training", "target tokens")),
    ("checkpoint", ("load_checkpoint", "optimizer.state_dict()", "torch.get_rng_state()", "never stopped")),
])
def test_new_components_have_specific_advice(component: str, words: tuple[str, ...]) -> None:
    advice = knowledge.COMPONENT_ADVICE[component]
    text = " ".join((advice.framing, advice.pro_tip, *advice.steps))
    assert all(word in text for word in words), (component, [w for w in words if w not in text])


@pytest.mark.parametrize(("component", "words"), [
    ("loss", ("collate", "-100", "EOS", "pad_id")),
    ("training", ("micro-batch", "grad_clip", "GradScaler", "unscaled", "get_lr")),
    ("general", ("collate", "train_step", "load_checkpoint")),
])
def test_pipeline_versions_of_the_model_advice(component: str, words: tuple[str, ...]) -> None:
    advice = knowledge.COMPONENT_ADVICE[component]
    pipeline = advice.for_tests(set(PIPELINE))
    assert pipeline is not advice and advice.for_tests(set(GPT)) is advice
    text = " ".join((pipeline.framing, pipeline.pro_tip, *pipeline.steps))
    assert all(word in text for word in words), (component, [w for w in words if w not in text])


def test_the_interface_advice_names_the_pipeline_functions() -> None:
    pipeline = knowledge.INTERFACE_ADVICE.for_tests(set(PIPELINE))
    text = " ".join(pipeline.steps)
    assert "GPTConfig" not in text and all(f in text for f in ("collate", "build_optimizer", "load_checkpoint"))
