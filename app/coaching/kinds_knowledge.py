"""What the coach knows about each bug kind of BUG_CATALOG.md: how to talk about it and how to check it.

`name` is how a tip refers back to a bug the candidate named themselves; `tests` are the hidden
tests that a bug of this kind typically fails (evidence only: never shown); `checks` say how to
verify, in the catalog's "test" column's spirit. Nothing here says how to fix a bug.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KindKnowledge:
    name: str
    component: str
    tests: tuple[str, ...]
    checks: tuple[str, ...]


K = KindKnowledge
_CACHE = ("generation.cache-matches-full-forward", "generation.cache-chunk-after-prefix")
_CAUSAL = ("attention.causal-perturb", "attention.causal-gradient", "attention.random-token-leak",
           "training.not-too-good")

KIND_KNOWLEDGE: dict[str, KindKnowledge] = {
    # A. Data and labels
    "label-no-shift": K("the label shift", "loss", ("data.targets-next-token", "loss.rewards-own-target"), (
        "Call get_batch on data = torch.arange(N) and print y - x: every entry tells you how far ahead the "
        "target is.",
        "Compare the training loss after a few dozen steps with the baseline: a loss racing towards zero on "
        "this little data is a symptom, not a success.",
        "Read one generated sample: a model that learned the wrong target tends to repeat what it sees.",
    )),
    "label-double-shift": K("the label shift", "loss", ("loss.matches-cross-entropy", "loss.rewards-own-target"), (
        "Feed logits that put all their mass on the true next token and check the loss is near zero; "
        "then try the token two ahead and see which one the code rewards.",
        "Trace the targets from get_batch to the loss and count every place they are sliced or shifted.",
        "Compare the final validation loss with the baseline: a floor well above it means the task got harder.",
    )),
    "ignore-index-wrong": K("the padding handling", "loss", ("loss.ignores-minus-one",
                                                             "loss.padding-matches-shorter"), (
        "Compute the loss on a batch, then on the same batch padded with -1 targets: the two must be equal.",
        "Backpropagate and check the gradient of the logits at padded positions is exactly zero.",
    )),
    "dataset-off-by-one": K("the data windows", "general", ("data.windows-cover-data", "data.get-batch-shapes"), (
        "On data = torch.arange(N), draw many batches and record the largest start index you ever see.",
        "Check every window has length block_size and the last possible window can be drawn.",
    )),
    # B. Embeddings
    "pos-not-added": K("the positional embeddings", "positional", ("positional.depends-on-position",), (
        "Feed a sequence of one repeated token: the logits at position 0 and at T-1 must differ.",
        "Print the input of the first block and check position information is in it.",
    )),
    "pos-wrong-slice": K("the positional embeddings", "positional", ("positional.depends-on-position",
                                                                      "general.forward-shapes"), (
        "Run the model at T = 1 and at T = block_size; both must work.",
        "Compare the embedding output with the token embedding plus the position rows you expect for 0..T-1.",
    )),
    "pos-frozen-zero": K("the positional embeddings", "positional", ("positional.receives-gradient",
                                                                      "positional.depends-on-position"), (
        "List model.named_parameters() and check the position table is there and trainable.",
        "Run one backward pass and print the gradient norm of the position table: it must be non-zero.",
        "Feed a constant-token sequence and compare the logits along the sequence.",
    )),
    "generate-no-crop": K("the context cropping", "generation", ("generation.crops-context",), (
        "Generate more than twice block_size tokens from a short prompt.",
        "Register a forward hook that asserts the sequence length handed to the model never exceeds block_size.",
    )),
    # C. Attention
    "mask-missing": K("the causal mask", "attention", _CAUSAL, (
        "Randomise the tokens after position t and assert the logits up to t do not change, for every t.",
        "Backpropagate from logits[:, t] and check no gradient reaches later positions.",
        "Train on random tokens: a causal model cannot beat ln V there.",
    )),
    "mask-future-leak": K("the causal mask", "attention", _CAUSAL + ("attention.rows-zero-on-future",), (
        "Randomise the tokens after position t and assert the logits up to t do not change, for every t "
        "including t = 0.",
        "Print one head's attention matrix on a short prompt and look at the entries above the diagonal.",
        "Train on random tokens: a model that beats ln V there is reading the answer.",
    )),
    "mask-flipped": K("the causal mask", "attention", ("attention.causal-perturb", "attention.rows-zero-on-future"), (
        "Print the attention matrix for a short prompt: which triangle is zero?",
        "Perturb later tokens and check which positions' logits move.",
    )),
    "mask-finite-fill": K("the mask fill value", "attention", ("attention.causal-extreme-scores",), (
        "Force very large scores on the allowed positions and check future probabilities stay exactly 0, "
        "not merely small.",
        "Compare masked probabilities with torch.equal against zero rather than with a tolerance.",
    )),
    "mask-polarity": K("the causal mask", "attention", ("attention.causal-perturb", "general.finite-outputs"), (
        "Check the logits are finite for T = 1: a fully masked row gives NaN.",
        "Perturb later tokens and check which positions' logits move.",
    )),
    "mask-after-softmax": K("the order of masking and softmax", "attention", ("attention.rows-sum-to-one",
                                                                             "attention.rows-zero-on-future"), (
        "Capture the attention probabilities and check every row sums to one.",
        "Check the same rows are exactly zero above the diagonal.",
    )),
    "softmax-wrong-dim": K("the softmax dimension", "attention", ("attention.rows-sum-to-one",
                                                                  "attention.causal-perturb"), (
        "Capture the attention probabilities and sum them along each axis: only one axis may sum to one.",
        "Perturb later tokens and check earlier logits stay put.",
    )),
    "attn-scale-wrong": K("the attention scaling", "attention", ("attention.score-scale",), (
        "Compare your attention output with F.scaled_dot_product_attention on the same q, k and v, with "
        "is_causal=True.",
        "Print the standard deviation of the scores before softmax at initialisation: it should be about one.",
        "Use a head size different from n_head and n_embd so the sizes cannot be confused.",
    )),
    "heads-no-transpose": K("the head split and merge", "attention", ("equivalence.logits",
                                                                      "attention.causal-perturb"), (
        "Write a slow per-head loop for n_head >= 2 and compare it with the vectorised attention.",
        "Perturb later tokens: scrambled heads often mix positions.",
    )),
    "batch-mixing": K("batch independence", "attention", ("attention.no-batch-mixing",), (
        "Check model(x[:1]) equals model(x)[:1].",
        "Backpropagate from one batch item's logits and confirm the other items get no gradient.",
    )),
    # D. Blocks
    "residual-wrong": K("the residual connections", "general", ("general.block-residual-identity",), (
        "Zero the output projections of attention and MLP: a block must then return its input unchanged.",
        "Compare the block's output with its input at initialisation.",
    )),
    "layernorm-wrong": K("the layer normalisation", "general", ("general.final-norm", "equivalence.logits",
                                                                 "attention.no-batch-mixing"), (
        "Print the per-token mean and variance right before lm_head: they should be near 0 and 1.",
        "Check no normalisation statistic is taken across the batch or time axis (perturb one item, watch others).",
    )),
    "dropout-at-eval": K("dropout at evaluation", "general", ("general.eval-deterministic",), (
        "In eval mode, run two forward passes on the same input and compare them with torch.equal.",
        "Check every dropout in the model follows model.training.",
    )),
    "mlp-no-nonlinearity": K("the MLP's nonlinearity", "general", ("general.mlp-nonlinear",), (
        "Check mlp(a + b) differs from mlp(a) + mlp(b) - mlp(0) for random a and b.",
        "Print the MLP's submodules and walk through its forward once by hand.",
    )),
    "weight-tying-broken": K("the weight tying", "general", ("equivalence.logits",), (
        "Check with `is` whether the output layer and the token embedding share one parameter.",
        "Compute the logits as the last hidden state times the embedding matrix transposed and compare.",
    )),
    # E. Output and loss
    "logits-targets-misaligned": K("the logits and targets layout", "loss", ("loss.rewards-own-target",
                                                                             "loss.matches-cross-entropy"), (
        "Recompute the per-token loss as -log_softmax(logits[b, t])[y[b, t]] and compare it entry by entry.",
        "Use B != T in the check so a reshape that swaps them cannot hide.",
    )),
    "softmax-before-ce": K("what the loss receives", "loss", ("loss.matches-cross-entropy",), (
        "On random logits, compare the model's loss with F.cross_entropy on the same logits.",
        "Compute the lowest loss the code can reach with perfect logits: it should be near zero.",
    )),
    "loss-reduction-wrong": K("the loss reduction", "loss", ("loss.mean-over-positions", "loss.init-near-ln-v"), (
        "Check the loss at initialisation is close to ln(vocab_size).",
        "Repeat the batch twice along B: the loss must not change.",
    )),
    # F. Training loop
    "zero-grad-missing": K("gradient handling between steps", "training", ("training.gradients-reset",
                                                                           "training.step-gradients"), (
        "Compare the gradient seen at step 2 with a fresh gradient on the same batch.",
        "Plot the training loss: a good start followed by oscillation points at the step, not the model.",
    )),
    "backward-wrong-tensor": K("what backward runs on", "training", ("training.step-gradients",), (
        "After one step, check every trainable parameter changed.",
        "Check the loss you backpropagate requires grad and is the training loss of this batch.",
    )),
    "grad-accum-not-divided": K("the gradient accumulation", "training", ("training.step-gradients",
                                                                          "training.accumulation-token-mean"), (
        "Compare the gradients of k accumulated micro-batches with one full batch of the same data.",
        "Use micro-batches of different sizes so an unweighted sum shows.",
    )),
    "lr-schedule-wrong": K("the learning-rate schedule", "training", ("training.learns", "training.lr-schedule"), (
        "Print the learning rate for the first steps and check the optimizer's param_groups use it.",
        "Check the parameters change at step 1.",
    )),
    "clip-after-step": K("the gradient clipping", "training", ("training.clip-before-step",), (
        "Wrap optimizer.step and record the gradient norm it sees: it must not exceed the clip value.",
        "Write down the order of the calls in one step and compare with the code.",
    )),
    "eval-mode-not-restored": K("the train/eval mode handling", "training", ("training.evaluate-eval-mode",), (
        "Inside the evaluation function, assert model.training is False.",
        "After it returns, assert the model is back in the mode it was in before.",
    )),
    # G. Generation
    "sample-wrong-position": K("where sampling reads the logits", "generation", ("generation.samples-last-position",
                                                                                "generation.greedy"), (
        "With top_k = 1, compare the next token with the argmax of the model's logits at the last position.",
        "Use prompts of different lengths so position mistakes cannot line up by chance.",
    )),
    "temperature-wrong": K("the temperature", "generation", ("generation.temperature",), (
        "Intercept the probabilities given to torch.multinomial and compare them with softmax of the "
        "logits divided by T, for T = 0.5 and T = 2.",
        "Check a low temperature makes samples more repetitive, not less.",
    )),
    "top-k-broken": K("the top-k filter", "generation", ("generation.top-k", "generation.greedy"), (
        "With top_k = k, count the tokens with non-zero probability: there must be exactly k.",
        "Check top_k = 1 gives the same tokens as greedy decoding.",
    )),
    "kv-cache-no-mask": K("the KV cache", "generation", ("generation.greedy",) + _CACHE, (
        "Compare greedy generation with and without the cache: the tokens must be identical.",
        "Check the prefill pass is causal: perturb later prompt tokens.",
    )),
    "generate-no-eval": K("sampling reproducibility", "generation", ("generation.seeded-reproducible",), (
        "Generate twice with the same seeded generator and compare the outputs.",
        "Check every random draw in generate uses the generator it was given.",
    )),
    "crop-off-by-one": K("the context cropping", "generation", ("generation.crops-context",), (
        "Generate exactly up to block_size and one past it, and watch the length the model receives.",
        "A forward hook asserting T <= block_size catches both ends.",
    )),
    "typo-wrong-variable": K("a typo", "general", ("equivalence.logits",), (
        "Compare the logits with a trusted implementation under the same weights.",
        "Use distinct sizes (vocab, width, heads, length) so a wrong variable changes a shape or a number.",
    )),
    "typo-wrong-dim": K("a wrong dimension", "general", ("equivalence.logits",), (
        "Write the expected shape next to each tensor in forward and assert it.",
        "Use distinct sizes (vocab, width, heads, length) so a wrong dimension cannot hide.",
    )),
    # H. The modern decoder (llama-v1)
    "rope-ignores-offset": K("the rotary positions of cached tokens", "generation",
                              (*_CACHE, "positional.rotary-in-decode"), (
        "Prefill a few tokens, then feed the rest one at a time through the cache, and compare every step's "
        "logits with the full forward's at the same position.",
        "Print the positions the rotation uses on one decode step after a prefill of five tokens: which "
        "position does the new token get?",
        "Decode a three-token chunk after a cached prefix and compare its logits with the full forward's.",
    )),
    "sdpa-causal-in-decode": K("the mask during decoding", "generation",
                                (*_CACHE, "generation.decode-weighs-every-key", "generation.chunk-mask"), (
        "Decode one token at a time through the cache and compare each step's logits with the full forward's: "
        "note the first step that differs.",
        "Feed a three-token chunk after a cached prefix and print the attention weights of its first query: "
        "which cached keys does it see?",
        "Write down which keys each new query may see against a cache of S positions, and compare with what "
        "the attention call is told.",
    )),
    "cache-write-wrong": K("the KV cache", "generation", (*_CACHE, "generation.decode-own-key"), (
        "After a prefill of k tokens, print how many positions the cache holds and which ones: exactly 0..k-1.",
        "Decode step by step through the cache and compare each step's logits with the full forward's at that "
        "position.",
        "Check the cache grows by exactly one position per decoded token.",
    )),
    "cache-after-repeat-kv": K("what the KV cache stores", "generation",
                               ("generation.cache-kv-heads",) + _CACHE, (
        "After a prefill, print the shape of every tensor in the cache: its head axis must be n_kv_heads.",
        "Use n_kv_heads different from n_heads (say 2 and 4) so a repeated head axis shows in the shapes.",
        "Decode a few steps through the cache and compare the logits with the full forward's.",
    )),
    "repeat-kv-wrong-axis": K("the sharing of key/value heads", "attention",
                              ("attention.causal-perturb",) + _CACHE, (
        "Print the shapes of k and v before and after they are shared across query heads: only the head axis "
        "may grow, by n_heads // n_kv_heads.",
        "Randomise the tokens after position t and assert the logits up to t do not change, for every t.",
        "Use a sequence length different from n_heads // n_kv_heads so the head and time axes cannot be "
        "confused.",
    )),
    "rope-on-values": K("where the rotary positions are applied", "positional", ("positional.shift-invariant",
                                                                              "positional.values-carry-no-position"), (
        "Prefill the same tokens into an empty cache at start_pos = 0 and at start_pos = 5: with rotary "
        "positions the logits must be the same.",
        "Trace which tensors pass through the rotation in forward, and for each say why it needs the position.",
        "On a sequence of one repeated token, print one head's values at every position and say whether they "
        "should differ.",
    )),
    "rope-pairs-mixed": K("the rotary channel pairs", "positional", ("positional.rotation-keeps-norm",
                                                                      "positional.rotary-frequencies",
                                                                      "positional.shift-invariant"), (
        "On a sequence of one repeated token, print the norm of each head's query at every position: a "
        "rotation keeps it constant.",
        "Check the query at position t is position 0's rotated by t times each pair's frequency, pairing the "
        "channels the way the angles are laid out.",
        "Prefill the same tokens at start_pos = 0 and at start_pos = 5 and compare the logits.",
    )),
    "rope-frequencies-wrong": K("the rotary frequencies", "positional", ("positional.rotary-frequencies",
                                                                          "positional.rotary-frequency-set",
                                                                          "equivalence.logits"), (
        "Print the frequencies the rotation uses and compare them with theta^(-2i / head_dim) for each pair i.",
        "Compute the score of one fixed query-key pair at distances d = 1, 2 and 5 and compare with a rotation "
        "written by hand.",
        "Use a width and head size far apart (dim 48, four heads of 12) so a frequency over the wrong size shows.",
    )),
    "rmsnorm-wrong": K("the RMS normalisation", "general", ("general.rmsnorm", "attention.causal-perturb"), (
        "With unit gain, print the root-mean-square of each position's normalised vector: it should be 1.",
        "Normalise a vector with a large constant offset plus noise and check the output points the same way "
        "as the input.",
        "Perturb the tokens after position t and check the logits up to t do not move: a statistic taken over "
        "time sees the future.",
    )),
    "rmsnorm-eps-wrong": K("the RMSNorm epsilon", "general", ("general.rmsnorm-eps",), (
        "Pass a row of zeros through one normalisation layer: the output must be finite.",
        "On features of size 1e-3, compare the layer's output with an RMS normalisation written by hand with "
        "the same eps.",
    )),
    "rmsnorm-gain-wrong": K("the RMSNorm gain", "general", ("general.rmsnorm", "general.parameters-receive-gradient"), (
        "Run one backward pass and list every parameter whose gradient is None or zero.",
        "At initialisation, print the root-mean-square of a normalisation layer's output: near 1, not 0.",
        "Scale the gain by hand and check the layer's output changes with it.",
    )),
    "swiglu-gate-wrong": K("the SwiGLU gate", "general", ("general.swiglu-gate",
                                                          "general.parameters-receive-gradient"), (
        "Run one backward pass and list every parameter whose gradient is None or zero.",
        "Capture what enters the MLP's output projection and compare it with SiLU of the gate projection "
        "times the value projection, computed by hand.",
        "Check mlp(a + b) differs from mlp(a) + mlp(b) - mlp(0) for random a and b.",
    )),
    "top-p-off-by-one": K("the top-p (nucleus) filter", "generation", ("generation.top-p", "generation.top-p-one"), (
        "Intercept the probabilities given to torch.multinomial and count the tokens kept: the smallest set of "
        "most likely tokens whose mass reaches p.",
        "Try a distribution where one token alone is above p: that token must be kept.",
        "Check top_p = 1.0 samples from the same distribution as no filter at all.",
    )),
    "grad-accum-token-mean": K("the gradient accumulation", "training", ("training.accumulation-token-mean",), (
        "Compare the gradient after one train_step over two micro-batches with the gradient of one batch "
        "holding all their tokens.",
        "Give the micro-batches different numbers of real targets (the rest -1) so each token's weight shows.",
        "Count the optimizer steps one train_step makes: exactly one.",
    )),
    "cosine-schedule-wrong": K("the learning-rate schedule", "training", ("training.lr-schedule",), (
        "Print get_lr for every step from 0 to max_steps: the first value must be above zero and the last "
        "equal to min_lr.",
        "Check the schedule never falls during warmup and never rises after it.",
        "Try warmup_steps = 0 and 1 as well as a longer warmup.",
    )),
}

# Kinds a candidate names in the same words ("the gradient accumulation", "the schedule", "the norm",
# "the KV cache"): a note naming one of them while the scenario planted another is about the planted one.
RELATED: tuple[frozenset[str], ...] = (
    frozenset({"grad-accum-not-divided", "grad-accum-token-mean"}),
    frozenset({"lr-schedule-wrong", "cosine-schedule-wrong"}),
    frozenset({"layernorm-wrong", "rmsnorm-wrong", "rmsnorm-eps-wrong", "rmsnorm-gain-wrong"}),
    frozenset({"mlp-no-nonlinearity", "swiglu-gate-wrong"}),
    frozenset({"kv-cache-no-mask", "cache-write-wrong", "cache-after-repeat-kv"}),
)


def stand_ins(kind: str, planted: set[str]) -> tuple[str, ...]:
    """The kinds a note's `kind` is about in a scenario that planted `planted`: itself when planted or
    when nothing related is, else the planted kinds related to it."""
    if kind in planted:
        return (kind,)
    related = sorted({k for group in RELATED if kind in group for k in group} & planted)
    return tuple(related) or (kind,)
