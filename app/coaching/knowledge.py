"""The coach's knowledge base: what to say about each component and each verification habit.

Written from the bug catalog's symptoms and tests. Tips point at how to *find and verify*, never at
the fix, so they can be shown to a candidate mid-interview without giving the answer away.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Advice:
    framing: str
    pro_tip: str
    steps: tuple[str, ...]


COMPONENT_ADVICE: dict[str, Advice] = {
    "loss": Advice(
        framing="Frame your answer around what the model is asked to predict at each position.",
        pro_tip="An oracle check settles label questions fast: logits that put all mass on the true next "
        "token should give a loss near zero, and anything else should not.",
        steps=(
            "Print one (x, y) pair from get_batch and check by eye that y is x moved by exactly one token.",
            "Compute the loss at initialisation and compare it with ln(vocab_size).",
            "Recompute the loss by hand with log_softmax and gather on a small batch and compare.",
            "Check which positions the loss ignores and confirm padding targets contribute nothing.",
        ),
    ),
    "positional": Advice(
        framing="Frame your answer around how the model can tell position 0 from position T-1.",
        pro_tip="Feed a sequence of one repeated token: if the logits are identical at every position, "
        "position information never reaches the output.",
        steps=(
            "List model.named_parameters() and confirm every embedding table you expect is trainable.",
            "Run one backward pass and check the positional parameters receive a non-zero gradient.",
            "Check the embedding output equals token embedding plus the positional rows for 0..T-1.",
        ),
    ),
    "attention": Advice(
        framing="Frame your answer around which positions each position is allowed to see.",
        pro_tip="Change the tokens after position t and assert the logits up to t do not move; do it for "
        "every t, not just the last one.",
        steps=(
            "Plot or print one head's attention matrix on a short prompt: the upper triangle must be zero.",
            "Check every attention row sums to one.",
            "Backpropagate from logits[b, t] and confirm no gradient reaches later positions or other batch items.",
            "Compare your attention with F.scaled_dot_product_attention(is_causal=True) on the same q, k, v.",
            "Watch the training run: a validation loss far below the baseline is a warning, not a win.",
        ),
    ),
    "general": Advice(
        framing="Frame your answer around the shapes and invariants each block must keep.",
        pro_tip="Use dimensions that are all different (vocab, width, heads, length) in your checks; equal "
        "sizes hide transposition mistakes.",
        steps=(
            "Run the model for several (B, T) including T = 1 and T = block_size and assert the shapes.",
            "In eval mode, two forward passes on the same input must be exactly equal.",
            "Check the outputs are finite after a few training steps, not only at initialisation.",
            "Overfit a single small batch: a healthy model drives its loss close to zero.",
        ),
    ),
    "training": Advice(
        framing="Frame your answer around what one optimisation step must do, in order.",
        pro_tip="Compare the gradient of the second step with a fresh gradient on the same batch: any "
        "difference means something carried over between steps.",
        steps=(
            "Write down the order of zero_grad, backward, clipping and step, and check the code follows it.",
            "After one step, confirm every trainable parameter changed.",
            "Inside evaluation, assert the model is in eval mode, and afterwards that its mode is restored.",
            "Plot the training loss: oscillation or divergence after a good start points at the loop.",
        ),
    ),
    "generation": Advice(
        framing="Frame your answer around the distribution each new token is drawn from.",
        pro_tip="Greedy decoding is testable: the next token must be the argmax of the last position's "
        "logits, computed separately.",
        steps=(
            "Generate more than twice block_size tokens and confirm the context handed to the model never "
            "exceeds block_size.",
            "Intercept the probabilities given to torch.multinomial and compare them with softmax(logits / T).",
            "With top_k = k, check that exactly k tokens have non-zero probability.",
            "Generate twice with the same seed and confirm the samples are identical.",
        ),
    ),
}

TRAINING_RUN_ADVICE = Advice(
    framing="Frame your answer around what the training and validation curves say about the model.",
    pro_tip="Read the curves against two lines: ln(vocab_size) at the start, and the baseline at the end. "
    "Far above the baseline means the model cannot learn; far below means it can see the answer.",
    steps=(
        "Check the loss at step 0 against ln(vocab_size).",
        "Compare train and validation loss: a training loss near zero with a rising validation loss is a "
        "warning sign, not overfitting to celebrate.",
        "Overfit one small batch; if even that fails, look at the loss and the data, not the optimiser.",
        "Perturb tokens after position t and confirm the logits up to t stay the same.",
    ),
)

# When the grader cannot call the code as the gpt-v1 interface says, nothing else is measured.
INTERFACE_ADVICE = Advice(
    framing="Frame your next step around the interface the grader calls: until it matches, no other check can run.",
    pro_tip="The interface check's message says what it expected next to what it found; start there.",
    steps=(
        "Read the public interface check's message and compare it with the brief's description of the files.",
        "Build GPTConfig with exactly the six keyword arguments and call GPT(config) on a small batch.",
        "Call forward with and without targets, and generate with a seeded generator, in the scratch console.",
        "Keep extra constructor arguments optional, with defaults.",
    ),
)

# How tips name each component to a candidate.
COMPONENT_NAMES: dict[str, str] = {
    "loss": "the loss and its targets", "positional": "the positional information",
    "attention": "the attention", "general": "the model's shapes and blocks",
    "training": "the training loop", "generation": "the sampling code",
}

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

ERROR_ADVICE: dict[str, Advice] = {
    "syntax": Advice(
        framing="Frame your next step around getting the files to import cleanly.",
        pro_tip="Run `python -c 'import model'` locally before submitting; the first error is the one to fix.",
        steps=("Read the error's file and line.", "Fix the syntax there.", "Import each file once before submitting."),
    ),
    "import": Advice(
        framing="Frame your next step around what happens when the files are imported.",
        pro_tip="Module-level code runs at import: keep the files to definitions only.",
        steps=(
            "Read the exception type and line in the message.",
            "Check names you renamed are renamed everywhere.",
            "Import each file once locally before submitting.",
        ),
    ),
    "timeout": Advice(
        framing="Frame your next step around how long each part of the code takes.",
        pro_tip="The grader trains a tiny model for a few hundred steps on one CPU core; anything slower "
        "than a few seconds is a loop that should not be there.",
        steps=("Look for loops without an exit.", "Time one forward pass locally.", "Remove debugging loops."),
    ),
    "memory": Advice(
        framing="Frame your next step around the size of the tensors you create.",
        pro_tip="Print tensor shapes: an accidental (T, T, C) or a list that keeps every step's graph grows fast.",
        steps=("Print the shapes in forward.", "Detach values you keep for logging.", "Avoid storing every step."),
    ),
    "output": Advice(
        framing="Frame your next step around what the code prints while it is graded.",
        pro_tip="Graded code should be quiet: prints inside forward run thousands of times during the checks.",
        steps=("Remove prints from forward, generate and the training step.", "Keep debugging output in scratch.py.",
               "Run before submitting to see the output is gone."),
    ),
    "crash": Advice(
        framing="Frame your next step around what made the process die rather than raise an error.",
        pro_tip="A crash without a Python error is usually memory or an endless recursion: look for what grows.",
        steps=("Look for recursion and for tensors that grow with every call.", "Time and size one forward pass.",
               "Run before submitting and read the message."),
    ),
}
