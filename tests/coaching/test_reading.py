"""The note reader: sentences, negation, claims and what they are about, methods, components, bug kinds."""

from __future__ import annotations

import pytest

from app.coaching.reading import read_note, split_sentences


def test_sentences_split_on_stops_lines_and_list_items_but_not_decimals() -> None:
    text = "Loss started at 4.17 vs ln V.\n- printed shapes\n* overfit one batch! Done"
    assert split_sentences(text) == ("Loss started at 4.17 vs ln V.", "printed shapes", "overfit one batch!", "Done")


def test_claim_is_linked_to_the_bug_kind_named_in_the_same_sentence() -> None:
    reading = read_note("find", "The label shift one I caught fast because I've been burned by that before.")
    (claim,) = reading.claims
    assert (claim.verb, claim.phrase, claim.negated) == ("found", "caught", False)
    assert claim.kinds == ("label-no-shift",) and "loss" in claim.components
    assert reading.experience == ("burned",) and reading.vague


def test_pronoun_refers_back_to_the_previous_sentence() -> None:
    reading = read_note("find", "There was a look-ahead leak in the attention. I fixed it.")
    fixed = [c for c in reading.claims if c.verb == "fixed"]
    assert fixed and fixed[0].kinds == ("mask-future-leak",)


@pytest.mark.parametrize("text", [
    "I did not verify the causal mask.",
    "I never checked the causal mask.",
    "I'm not sure I fixed the causal mask.",
    "Didn't get to confirm the causal mask.",
])
def test_negated_claims_are_marked(text: str) -> None:
    claims = read_note("verify", text).claims
    assert claims and all(c.negated for c in claims) and claims[0].kinds == ("mask-future-leak",)


def test_negation_stops_at_the_clause() -> None:
    reading = read_note("verify", "The loss was not great at first, but I verified the label shift with an oracle.")
    verified = [c for c in reading.claims if c.verb == "verified"]
    assert verified and not verified[0].negated


def test_skipped_methods_are_those_named_only_as_not_done() -> None:
    reading = read_note("verify", "I didn't overfit a single batch, but I compared the loss with the baseline.")
    assert reading.skipped_methods == ("overfit-one-batch",)
    assert "baseline-comparison" in reading.methods


@pytest.mark.parametrize(("text", "method"), [
    ("Ran it on a tiny dataset just to sanity check.", "tiny-run"),
    ("isolate each module and test it independently", "unit-test-per-module"),
    ("I overfit one batch to near zero loss", "overfit-one-batch"),
    ("compared against the baseline curve", "baseline-comparison"),
    ("printed the shapes of q, k and v", "shape-prints"),
    ("checked the gradient of wpe", "gradient-checks"),
    ("randomised the later tokens", "perturbation"),
    ("plotted the attention heatmap", "visualisation"),
    ("fed an oracle with one-hot logits", "oracle-loss"),
    ("seeded the generator and compared two runs", "seeded-sampling"),
])
def test_methods_in_the_candidates_words(text: str, method: str) -> None:
    assert method in read_note("q", text).methods


@pytest.mark.parametrize(("text", "kind"), [
    ("the label shift was wrong", "label-no-shift"),
    ("an off-by-one in the targets", "label-no-shift"),
    ("targets equal the inputs", "label-no-shift"),
    ("the causal mask leaked", "mask-future-leak"),
    ("a look-ahead bug", "mask-future-leak"),
    ("positional embeddings were frozen", "pos-frozen-zero"),
    ("the softmax over the wrong dim", "softmax-wrong-dim"),
    ("mask after the softmax", "mask-after-softmax"),
    ("heads merged without a transpose", "heads-no-transpose"),
    ("zero_grad was missing so gradients accumulated", "zero-grad-missing"),
    ("clipping happened too late", "clip-after-step"),
    ("the temperature multiplied", "temperature-wrong"),
    ("top-k filled zeros", "top-k-broken"),
    ("the context was never cropped", "generate-no-crop"),
    ("padding was counted", "ignore-index-wrong"),
    ("the LayerNorm used the batch", "layernorm-wrong"),
])
def test_bug_kinds_in_the_candidates_words(text: str, kind: str) -> None:
    assert kind in read_note("q", text).kinds


@pytest.mark.parametrize(("text", "component"), [
    ("the targets were off", "loss"), ("cross-entropy looked odd", "loss"),
    ("the position table", "positional"), ("wpe never moved", "positional"),
    ("the attention weights", "attention"), ("look-ahead in attn", "attention"),
    ("the residual stream", "general"), ("tensor shapes", "general"),
    ("the optimizer step", "training"), ("zero_grad placement", "training"),
    ("sampling with temperature", "generation"), ("top-k in generate", "generation"),
])
def test_components_in_the_candidates_words(text: str, component: str) -> None:
    assert component in read_note("q", text).components


def test_everything_claim_and_vagueness() -> None:
    reading = read_note("approach", "Fixed all the bugs.")
    assert reading.claims[0].everything and reading.vague
    assert "names no method, component or bug" in reading.vague_reasons


def test_numbers_are_found_at_the_end_of_a_sentence() -> None:
    assert read_note("q", "Initial loss 4.17, ln V 4.17.").numbers == ("4.17", "4.17")


def test_explain_quotes_the_words_behind_each_finding() -> None:
    lines = read_note("find", "I caught the label shift by printing a batch.").explain()
    assert 'kind label-no-shift: "label shift" in sentence 1' in lines
    assert 'claim found: "caught" in sentence 1' in lines
    assert any(line.startswith("method print-debugging") for line in lines)
