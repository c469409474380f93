"""What the coach knows about verification methods: their names, how to make a note that names one
convincing, and the one-line suggestion when a write-up would gain from it."""

from __future__ import annotations

from app.coaching.knowledge import Advice

# Verification methods: how tips name them, how to make a note that names one convincing, and the
# one-line suggestion when a write-up would gain from it.
METHOD_NAMES: dict[str, str] = {
    "overfit-one-batch": "overfitting one batch", "tiny-run": "a tiny training run",
    "unit-test-per-module": "a test per module", "baseline-comparison": "a comparison with the baseline",
    "shape-prints": "shape checks", "gradient-checks": "gradient checks", "perturbation": "perturbing later tokens",
    "reading-code": "reading the code", "print-debugging": "printing values",
    "visualisation": "plots", "oracle-loss": "an oracle loss check", "seeded-sampling": "seeded sampling",
}

METHOD_ADVICE: dict[str, Advice] = {
    # Its steps are written from the attempt's own numbers (app/coaching/run_story.py); these are fallbacks.
    "tiny-run": Advice(
        framing="Structure your answer as what the tiny run showed, in numbers: where the loss started, where it "
        "ended and what the model wrote.",
        pro_tip="Read a tiny run against two lines: ln(vocab_size) at step 0 and the baseline at the end. Far "
        "above the baseline means it cannot learn; far below means it can see the answer.",
        steps=("Give the loss at step 0 next to ln(vocab_size).",
               "Give the final validation loss next to the baseline's.",
               "Quote the first characters of the sample and say whether they look like the corpus."),
    ),
    "overfit-one-batch": Advice(
        framing="Frame your answer around what overfitting one batch proved and what it cannot prove.",
        pro_tip="Overfitting one batch separates a model that cannot learn from a task that is hard, but a "
        "model that sees the answer passes it too: pair it with a causality check.",
        steps=("Say how many steps it took and the loss it reached on the batch.",
               "Say what you would have concluded had it plateaued.",
               "Add the check that a leaking model would fail, since a leaking model memorises a batch too."),
    ),
    "unit-test-per-module": Advice(
        framing="Start by outlining the modules in the order you tested them and the invariant each test asserted.",
        pro_tip="A per-module test convinces when it can fail: name the input, the assertion and the number "
        "it printed.",
        steps=("List the modules you isolated (data, embeddings, attention, block, loss, sampling) with one "
               "assertion each.",
               "Use sizes that are all different (B, T, C, V, heads) so a transposed tensor cannot pass.",
               "Say which test went red first and what it printed."),
    ),
    "baseline-comparison": Advice(
        framing="Frame your answer around the two numbers you compared and what the gap between them meant.",
        pro_tip="Quote both sides of a comparison: yours and the baseline's, with the tolerance you allowed.",
        steps=("Give the initial loss next to ln(vocab_size).",
               "Give the final validation loss next to the baseline's, and say which side of it you landed.",
               "Say what a result far below the baseline would have meant."),
    ),
    "shape-prints": Advice(
        framing="Frame your answer around which shapes you checked and which invariant each one protects.",
        pro_tip="Shapes only catch what changes a shape: a transposed (T, T) matrix keeps its shape, so pair "
        "shape checks with a value check.",
        steps=("Say which tensors you printed and the shapes you expected, e.g. (B, nh, T, hs).",
               "Turn the prints into asserts so they keep guarding the code.",
               "Add one value-level check (row sums, a reference implementation) where shapes cannot help."),
    ),
    "gradient-checks": Advice(
        framing="Frame your answer around which gradients you inspected and what each one should have been.",
        pro_tip="Gradients answer 'does this parameter learn' and 'which inputs influence this output': say which "
        "question you asked.",
        steps=("Name the parameter or position whose gradient you printed and its value.",
               "Backpropagate from one output position and list which inputs received gradient.",
               "Say what a zero or non-zero value there would have meant."),
    ),
    "perturbation": Advice(
        framing="Frame your answer around what you changed in the input and which outputs were allowed to move.",
        pro_tip="A perturbation test is only complete when it covers every position t, including the first.",
        steps=("Say which tokens you randomised and which logits you compared.",
               "Give the largest difference you saw on positions that must not move.",
               "Repeat it across the batch: one example must never move another."),
    ),
    "reading-code": Advice(
        framing="Frame your answer around what you expected each line to do and the check that confirmed it.",
        pro_tip="Reading finds candidates; a test that fails before the fix and passes after makes it a finding.",
        steps=("Name the symptom that made you read that part of the code.",
               "For each suspicious line, say the small test that showed it was wrong.",
               "Say what you read last, and whether a test covers it."),
    ),
    "print-debugging": Advice(
        framing="Frame your answer around which values you printed and what they should have been.",
        pro_tip="A print is evidence only next to the value you expected: write both down.",
        steps=("Name the value you printed and the expected value.",
               "Turn the decisive print into an assert you can re-run.",
               "Say which print changed your mind."),
    ),
    "visualisation": Advice(
        framing="Frame your answer around what the plot showed and which pattern a correct model would show.",
        pro_tip="Describe a plot by its deviation: 'the upper triangle was not empty' beats 'the heatmap looked odd'.",
        steps=("Say what you plotted and on which input.",
               "Describe the pattern a correct model shows and where yours differed.",
               "Back the plot with a number (a sum, a maximum) that a test can assert."),
    ),
    "oracle-loss": Advice(
        framing="Frame your answer around the loss a perfect predictor gets and what your code gave it.",
        pro_tip="An oracle check settles label questions fast: perfect logits must give a loss near zero, and "
        "shifted ones must not.",
        steps=("Say which logits you built and the loss they got.",
               "Shift the oracle by one position and say how the loss changed.",
               "Say what the two numbers told you about the targets."),
    ),
    "seeded-sampling": Advice(
        framing="Frame your answer around what a seeded generator lets you assert about sampling.",
        pro_tip="Randomness is testable: with the same generator state, samples must match exactly.",
        steps=("Say which generator you passed and what you compared.",
               "Intercept the probabilities handed to torch.multinomial and compare them with your expectation.",
               "Say how you tested temperature and top-k separately."),
    ),
}

METHOD_SUGGESTIONS: dict[str, str] = {
    "overfit-one-batch": "Overfit one small batch: it separates a broken model from a hard task in seconds.",
    "baseline-comparison": "Compare your numbers with a known-good baseline: loss at step 0 against ln(vocab_size), "
    "the final validation loss against the reference curve.",
    "unit-test-per-module": "Write one small deterministic test per component (loss, positions, mask, sampling).",
    "perturbation": "Randomise the tokens after position t and check the logits up to t do not move.",
    "gradient-checks": "Backpropagate from one output position and look at which inputs receive gradient.",
    "oracle-loss": "Feed perfect logits to the loss: it must be near zero, and shifted ones must not be.",
    "shape-prints": "Assert the shape of each intermediate tensor with sizes that are all different.",
    "seeded-sampling": "Generate twice with the same seeded generator and compare the outputs.",
}
