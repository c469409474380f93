"""The coach's knowledge base: what to say about each component and each verification habit.

Written from the bug catalog's symptoms and tests. Tips point at how to *find and verify*, never at
the fix, so they can be shown to a candidate mid-interview without giving the answer away.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

# Marker tests: an interface that runs one has that part (a KV cache, rotary positions, a schedule...).
CACHE = "generation.cache-matches-full-forward"
ROTARY = "positional.shift-invariant"
RMSNORM = "general.rmsnorm"
SCHEDULE = "training.lr-schedule"
PIPELINE = "training.accumulation-token-mean"  # pipeline-v1: the grader's loop around the candidate's pieces


@dataclass(frozen=True)
class Advice:
    framing: str
    pro_tip: str
    steps: tuple[str, ...]
    # The same advice for an interface that runs the named test: a llama-style decoder's rotary
    # positions, grouped-query attention and KV cache fail in other ways than a GPT's learned table.
    instead: tuple[tuple[str, Advice], ...] = ()

    def for_tests(self, test_ids: Set[str] | None) -> Advice:
        """The advice for a scenario whose interface runs these tests (None: not known, this one)."""
        for test_id, advice in self.instead:
            if test_ids is not None and test_id in test_ids:
                return advice
        return self

    def variants(self) -> tuple[Advice, ...]:
        """This advice and every interface's version of it."""
        return (self, *(advice for _test, advice in self.instead))


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
        instead=((PIPELINE, Advice(
            framing="Frame your answer around which label collate gives each position: the next real token, or "
            "-100 where nothing real follows.",
            pro_tip="Collate two documents of very different lengths and print input_ids, attention_mask and "
            "labels row by row: the shift, the padding and each final EOS are all visible at once.",
            steps=(
                "For one short document, check position t's label is the token at t + 1 and nothing else "
                "shifts the labels again on the way to the loss.",
                "Print the labels after each document's last real token: every one must be -100.",
                "Collate again with pad_id equal to the EOS id: each document's final EOS must still be a label.",
                "Compute the loss of a document alone and padded beside a long one: padding must not move it.",
            ),
        )),),
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
        instead=((ROTARY, Advice(
            framing="Frame your answer around how rotary positions make attention depend on the distance between "
            "two tokens, and on nothing else.",
            pro_tip="Rotary positions are testable without the weights: the same tokens prefilled into an empty "
            "cache at start_pos = 0 and at start_pos = 5 must give the same logits.",
            steps=(
                "Prefill the same tokens at two start positions and compare the logits.",
                "On a sequence of one repeated token, print the norm of each head's query and key at every "
                "position: a rotation keeps them constant.",
                "Check the query at position t is position 0's rotated by t times each channel pair's frequency, "
                "theta^(-2i / head_dim), pairing channels the way the angles are laid out.",
                "Trace which tensors pass through the rotation, and which position each decoded token is given "
                "when a cache already holds earlier ones.",
            ),
        )),),
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
        instead=((CACHE, Advice(
            framing="Frame your answer around which keys each query may see, in a full forward and in a decode "
            "step through the cache.",
            pro_tip="Change the tokens after position t and assert the logits up to t do not move; then decode "
            "through the cache and check every step against the full forward, one token and a chunk at a time.",
            steps=(
                "Perturb the tokens after position t and check the logits up to t stay put, for every t.",
                "With grouped-query attention, print k and v before and after they are shared across query heads "
                "(repeat_kv): only the head axis may grow, by n_heads // n_kv_heads.",
                "Decode one token, then a three-token chunk, through the cache: each new query must see every "
                "cached key and the new ones up to itself, whatever an is_causal flag assumes.",
                "Check every attention row sums to one and the scores are scaled by 1/sqrt(head_dim).",
                "Compare your attention with F.scaled_dot_product_attention and an explicit mask on the same q, k, v.",
            ),
        )),),
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
        instead=((RMSNORM, Advice(
            framing="Frame your answer around the shapes and invariants each block must keep: the RMSNorm's "
            "scale and the SwiGLU's gate included.",
            pro_tip="Run one backward pass and list every parameter whose gradient is None or zero: a norm gain or "
            "a feed-forward projection that never learns shows up at once.",
            steps=(
                "Run the model for several (B, T) including T = 1 and T = max_seq_len and assert the shapes.",
                "With unit gain, print the root-mean-square of each position's RMSNorm output (about 1), and pass a "
                "row of zeros through it: the output must be finite.",
                "Capture what enters the SwiGLU's output projection and compare it with SiLU of the gate "
                "projection times the value projection, computed by hand.",
                "Run one backward pass and check every trainable parameter receives a gradient.",
                "In eval mode, two forward passes on the same input must be exactly equal.",
            ),
        )),
            (PIPELINE, Advice(
                framing="Frame your answer around the functions the grader calls and the shapes they return: "
                "the model is the scenario's and is correct.",
                pro_tip="Call each function of data.py and train.py once in the scratch console on a tiny input "
                "and print what comes back: types and shapes first, values second.",
                steps=(
                    "Check collate returns input_ids, attention_mask and labels, each a LongTensor of shape "
                    "(batch, longest example).",
                    "Check train_step returns a float and makes exactly one optimizer step per call.",
                    "Check load_checkpoint returns an int and evaluate a float.",
                    "Keep every function's signature as the brief gives it, extra arguments optional.",
                ),
            ))),
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
        instead=((SCHEDULE, Advice(
            framing="Frame your answer around what one optimisation step must do, in order, over all its "
            "micro-batches and at the learning rate the schedule gives.",
            pro_tip="Both the schedule and the accumulation are testable in isolation: print get_lr for every "
            "step, and compare one accumulated step's gradient with one big batch's.",
            steps=(
                "Print get_lr from step 0 to max_steps: above zero at step 0, rising through warmup, never rising "
                "after it, and min_lr at max_steps (try warmup_steps = 0 too).",
                "Compare the gradient of one train_step over micro-batches with different numbers of real targets "
                "with the gradient of one batch holding all their tokens.",
                "Write down the order of zero_grad, backward, clipping and step, and check one step calls the "
                "optimizer once.",
                "Inside evaluation, assert the model is in eval mode, and afterwards that its mode is restored.",
            ),
        )),
            (PIPELINE, Advice(
                framing="Frame your answer around the gradient one optimizer step is handed: that of the mean "
                "loss over every target token of all its micro-batches, clipped on its true scale.",
                pro_tip="Wrap optimizer.step to record the gradients it receives, and compare them with one "
                "big batch's gradient over the same examples: every accumulation, scaling and clipping mistake "
                "shows up there.",
                steps=(
                    "Run train_step over micro-batches with very different numbers of target tokens and compare "
                    "the step's gradient with one batch holding all their tokens.",
                    "Split one batch into 1, 2 and 4 equal micro-batches: the step's gradient must not change.",
                    "With a small grad_clip, check the total norm handed to the step equals grad_clip; with a "
                    "GradScaler, check the step sees true gradients, unscaled before clipping.",
                    "Print get_lr for every step from 0 to max_steps + 5: above 0 at step 0, max_lr at "
                    "warmup_steps, min_lr at max_steps.",
                    "Make one gradient infinite with a hook: with a scaler, the parameters must not move.",
                ),
            ))),
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
        instead=((CACHE, Advice(
            framing="Frame your answer around the distribution each new token is drawn from, and the cache that "
            "computes it.",
            pro_tip="The KV cache is testable: prefill a few tokens, decode the rest one at a time, and every "
            "step's logits must equal the full forward's at that position.",
            steps=(
                "Decode through the KV cache after a prefill and after a chunk, and compare every step's logits "
                "with the full forward's at the same position.",
                "After a prefill, print the shape of each cached tensor: one key and value per key/value head.",
                "With top_p = p, check the kept tokens are the smallest set of most likely tokens whose mass "
                "reaches p, and that top_p = 1.0 changes nothing.",
                "Intercept the probabilities given to torch.multinomial and compare them with softmax(logits / T).",
                "Generate past max_seq_len and twice with the same seed, and confirm both behave.",
            ),
        )),),
    ),
    "data": Advice(
        framing="Frame your answer around what each document does between the corpus and a batch: which side "
        "of the split it lands on and when each epoch shows it.",
        pro_tip="Give every document its own index as its first token: then split's two parts and every "
        "epoch's batches can be checked by counting indices.",
        steps=(
            "Split indexed documents and check the two parts are disjoint, cover every document once, and the "
            "validation part holds val_fraction of them, within one.",
            "Call split twice with one seed and once with another: equal, then different.",
            "Draw epochs 0, 1 and 2 and check each holds every example exactly once, only the last batch "
            "smaller.",
            "Compare consecutive epochs' orders, and the same (epoch, seed) twice: new each epoch, repeatable "
            "for the same pair.",
        ),
    ),
    "optimizer": Advice(
        framing="Frame your answer around which parameters the optimizer holds, which of them decay, and how "
        "the decay is applied.",
        pro_tip="Print every parameter group with its weight_decay next to the names and shapes of its "
        "parameters: a missing parameter or a bias that decays stands out at once.",
        steps=(
            "Check every parameter that requires grad sits in exactly one group (compare ids, not names).",
            "Check matrices and embeddings carry weight_decay and every one-dimensional parameter carries 0.",
            "Set known gradients, take one step and compare with AdamW's update computed by hand: the decay "
            "shrinks the weights beside the adaptive step, not through the gradient.",
            "Watch out for tied weights: one tensor reached under two names is still one parameter.",
        ),
    ),
    "evaluation": Advice(
        framing="Frame your answer around the state evaluate runs the model in, and what its number averages.",
        pro_tip="A recording model answers most evaluation questions: log model.training and "
        "torch.is_grad_enabled() inside forward, then call evaluate.",
        steps=(
            "Check evaluate runs every forward in eval mode and without building a graph.",
            "Call evaluate on a model in training mode and print model.training afterwards.",
            "Evaluate batches with very different numbers of target tokens and compare with the summed "
            "cross-entropy over every target token divided by their count.",
            "Call evaluate twice on the same batches with dropout on: the values must be identical.",
        ),
    ),
    "checkpoint": Advice(
        framing="Frame your answer around everything the next training step depends on, and whether a "
        "checkpoint brings all of it back.",
        pro_tip="Run k steps, save, load into a fresh model and optimizer (after moving the RNG on) and "
        "finish; then compare the final parameters with a run that never stopped, dropout on.",
        steps=(
            "Print what load_checkpoint returns after a save at step k: the number of steps done.",
            "Compare optimizer.state_dict() after loading with the one saved: moments and step counts.",
            "Compare torch.get_rng_state() after loading with the state at the save.",
            "Compare the losses of the resumed steps with the uninterrupted run's at the same steps.",
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

# When the grader cannot call the code as the scenario's interface says, nothing else is measured.
INTERFACE_ADVICE = Advice(
    framing="Frame your next step around the interface the grader calls: until it matches, no other check can run.",
    pro_tip="The interface check's message says what it expected next to what it found; start there.",
    steps=(
        "Read the public interface check's message and compare it with the brief's description of the files.",
        "Build GPTConfig with exactly the six keyword arguments and call GPT(config) on a small batch.",
        "Call forward with and without targets, and generate with a seeded generator, in the scratch console.",
        "Keep extra constructor arguments optional, with defaults.",
    ),
    instead=((CACHE, Advice(
        framing="Frame your next step around the interface the grader calls: until it matches, no other check can "
        "run.",
        pro_tip="The interface check's message says what it expected next to what it found; start there.",
        steps=(
            "Read the public interface check's message and compare it with the brief's description of the files.",
            "Build ModelArgs with exactly the keyword arguments the brief lists and call Transformer(args) on a "
            "small batch.",
            "Call forward with and without targets, then with a cache from new_cache and a start_pos, in the "
            "scratch console.",
            "Generate with and without the cache, with top_p, and with a seeded generator.",
            "Keep extra constructor arguments optional, with defaults.",
        ),
    )),
        (PIPELINE, Advice(
            framing="Frame your next step around the functions the grader calls: until they match, no other "
                    "check can run.",
            pro_tip="The interface check's message says what it expected next to what it found; start there.",
            steps=(
                "Read the public interface check's message and compare it with the brief's description of "
                "data.py and train.py.",
                "Check data.py defines collate, split and batches and train.py build_optimizer, get_lr, "
                "train_step, evaluate, save_checkpoint and load_checkpoint, with the brief's arguments.",
                "Call each once in the scratch console on a tiny input and print what it returns.",
                "Keep extra arguments optional, with defaults; model.py is the scenario's and stays as it is.",
            ),
        ))),
)

# How tips name each component to a candidate.
COMPONENT_NAMES: dict[str, str] = {
    "loss": "the loss and its targets", "positional": "the positional information",
    "attention": "the attention", "general": "the model's shapes and blocks",
    "training": "the training loop", "generation": "the generation code",
    "data": "the data pipeline (collate, split, batches)", "optimizer": "the optimizer and its parameter groups",
    "evaluation": "the evaluation loop", "checkpoint": "saving and resuming",
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
