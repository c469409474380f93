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
