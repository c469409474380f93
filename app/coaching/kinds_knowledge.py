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
    # I. The training pipeline (pipeline-v1): data.py and train.py around a correct model
    "accum-micro-batch-mean": K("the per-token weighting of micro-batches", "training",
                                ("training.accumulation-token-mean",), (
        "Run one train_step over two micro-batches, one holding 2 target tokens and one 40, and compare the "
        "gradient the optimizer is handed with the gradient of one batch holding all 42.",
        "Count the target tokens (labels not -100) of each micro-batch and of the whole step, and work out "
        "the weight each token ends up with in the step's gradient: every token must weigh the same.",
        "Repeat with micro-batches of equal token counts: if only the unequal split differs from one big "
        "batch, the micro-batches are weighted by count, not by tokens.",
    )),
    "accum-not-divided": K("the scale of the accumulated loss", "training", (
            "training.accumulation-equal-split", "training.accumulation-token-mean"), (
        "Split one batch into 1, 2 and 4 equal micro-batches and print the total gradient norm of each "
        "train_step: the norm must not grow with the number of micro-batches.",
        "Compare the accumulated gradient with the gradient of one batch holding every micro-batch, on the same "
        "weights, element by element.",
        "Set grad_clip very high for the comparison, so clipping cannot hide a gradient that is several times "
        "too large.",
    )),
    "accum-zero-grad-inside": K("when the gradients are reset", "training", (
            "training.accumulation-every-micro-batch", "training.accumulation-equal-split"), (
        "Wrap optimizer.step and record the gradients it is handed; compare them with each micro-batch's own "
        "gradient: if they equal the last one's, the earlier micro-batches were wiped.",
        "Count how often the gradients are reset during one train_step, and where that happens relative to "
        "the backward calls.",
        "Check the cosine between the step's gradient and one big batch's gradient over the same examples: "
        "it must be 1.",
    )),
    "amp-clip-before-unscale": K("clipping under the GradScaler", "training", (
            "training.scaler-clips-true-gradients",), (
        "With torch.amp.GradScaler(\"cpu\", init_scale=1024) and a small grad_clip, record the gradient norm "
        "the optimizer's step is handed and compare it with the clip value.",
        "Print the gradient norm right before clipping, with and without a scaler: a norm about init_scale "
        "times larger means the clip measured scaled gradients.",
        "Write down the order of scale, backward, unscale, clip, scaler step and update, and check the code "
        "follows it.",
    )),
    "amp-step-bypasses-scaler": K("stepping through the GradScaler", "training", (
            "training.scaler-unscaled-step", "training.scaler-skips-inf"), (
        "With a GradScaler of init_scale 1024, compare the gradients handed to optimizer.step with the same "
        "step's gradients without a scaler: they must be equal, not 1024 times larger.",
        "Make one gradient infinite with a hook and check the parameters do not move and the scaler's scale "
        "halves after train_step.",
        "Print scaler.get_scale() over a few steps: it never changes if the scaler is never updated.",
    )),
    "pad-in-loss": K("padding in the loss", "loss", ("loss.padding-ignored",), (
        "Collate documents of lengths 3 and 9 and print the short one's labels after its last real token: "
        "each must be -100.",
        "Compute the loss of one document alone and of the same document padded next to a long one, weighted "
        "by target tokens: the two must agree however much padding there is.",
        "Count the labels that are not -100 and compare with the number of real next tokens in the batch.",
    )),
    "eos-masked-as-pad": K("the EOS target", "loss", ("loss.eos-is-a-target",), (
        "Collate with pad_id equal to the EOS id and check each document's final EOS still appears among "
        "the labels.",
        "Compare the labels collate gives with pad_id = EOS and with a pad id no document uses: only the "
        "padding positions may differ, and they are -100 in both.",
        "Ask how the code decides a position is padding: from the documents' lengths, or by comparing ids?",
    )),
    "collate-shift-wrong": K("the label shift in collate", "loss", ("loss.labels-next-token",), (
        "Collate one document [a, b, c, EOS] and print input_ids and labels side by side: position t's label "
        "must be the token at t + 1.",
        "Follow the labels from collate to the cross-entropy and count every place they are sliced or "
        "shifted: exactly once in the whole pipeline.",
        "Compare the loss of a few training steps with the baseline's: a loss that barely falls, or falls "
        "suspiciously fast, points at the targets.",
    )),
    "decay-on-vectors": K("which parameters decay", "optimizer", ("optimizer.decay-by-dimension",), (
        "Print every optimizer group with its weight_decay and the names and shapes of its parameters.",
        "Check no one-dimensional parameter (bias, norm gain) sits in a group with weight_decay above 0, and "
        "every matrix and embedding does.",
        "Compare the sets of names you get by dimension and by module type: they must be the same.",
    )),
    "decay-not-decoupled": K("decoupled weight decay", "optimizer", ("optimizer.decoupled-decay",), (
        "Set known gradients, take one optimizer step and compare the parameters with AdamW's rule computed "
        "by hand: p * (1 - lr * wd) - lr * g / (|g| + eps) on the first step.",
        "Print the optimizer's class and each group's settings: Adam's weight_decay adds to the gradient, "
        "which the adaptive step then rescales.",
        "Try a large weight decay on a parameter with a large gradient and see whether the decay still shows.",
    )),
    "params-missing-from-optimizer": K("the optimizer's parameter groups", "optimizer",
                                       ("optimizer.every-parameter",), (
        "Compare the ids of the model's parameters that require grad with the ids across every "
        "optimizer group: each must appear exactly once.",
        "Take one step with non-zero gradients everywhere and list the parameters that did not change.",
        "Check the groups built by your filter together cover every parameter name the model has.",
    )),
    "warmup-skips-first": K("the start of the warmup", "training", ("training.lr-warmup", "training.lr-cosine"), (
        "Print get_lr for steps 0 to warmup_steps + 2: step 0 must be above zero, the values must rise by "
        "equal amounts, and step warmup_steps must give max_lr exactly.",
        "Remember the grader sets the lr to get_lr(step) before the step numbered step: list which value the "
        "first optimizer step actually uses.",
        "Try warmup_steps = 1 as well as a longer warmup.",
    )),
    "schedule-horizon-wrong": K("the schedule's horizon", "training", ("training.lr-cosine",), (
        "Print get_lr from warmup_steps to max_steps + 5: it must fall from max_lr to exactly min_lr at "
        "max_steps and stay there.",
        "Check the midpoint of the decay: halfway between warmup_steps and max_steps the lr must be halfway "
        "between max_lr and min_lr.",
        "Ask what unit each argument is in (optimizer steps, not epochs or micro-batches) and check the "
        "schedule uses the same one throughout.",
    )),
    "clip-wrong-place": K("where the gradients are clipped", "training", ("training.clip-total-norm",), (
        "With a small grad_clip, record the total gradient norm handed to optimizer.step: it must equal "
        "grad_clip when the true norm is larger.",
        "Compare the step's gradient with the true gradient of all micro-batches scaled to norm grad_clip: "
        "the direction must be the same.",
        "Write down where clipping sits relative to every backward and to the step, and check it happens once "
        "per step.",
    )),
    "eval-dropout-on": K("evaluation in eval mode", "evaluation", ("evaluation.eval-mode",), (
        "Record model.training inside the model's forward while evaluate runs: it must be False every time.",
        "Call evaluate twice on the same batches with dropout on: the two values must be identical.",
        "Compare evaluate's value with the loss computed by hand with the model in eval mode.",
    )),
    "eval-train-not-restored": K("the mode after evaluation", "evaluation", ("evaluation.restores-train-mode",), (
        "Call evaluate on a model in training mode and print model.training afterwards.",
        "Check every submodule's training flag after evaluate, not only the top module's.",
        "Watch the training loss after the first evaluation: a sudden smooth drop means dropout went off.",
    )),
    "eval-builds-graph": K("gradient tracking during evaluation", "evaluation", ("evaluation.no-grad",), (
        "Record torch.is_grad_enabled() inside the model's forward while evaluate runs: it must be False.",
        "Check whether the loss evaluate computes has a grad_fn.",
        "Watch memory across a long evaluation: a graph kept per batch grows with the number of batches.",
    )),
    "eval-mean-of-means": K("how the validation loss is averaged", "evaluation", ("evaluation.token-mean",), (
        "Evaluate batches with very different numbers of target tokens (one of 4, one of 40) and compare with "
        "the cross-entropy summed over every target token divided by their count, computed by hand.",
        "Evaluate the same documents as one batch and as several: the value must not depend on the split.",
        "Make the last batch smaller than the others and check the result does not move.",
    )),
    "split-leaks": K("the train/validation split", "data", ("data.split-disjoint",), (
        "Split documents that carry their own index and check the two index sets are disjoint and together "
        "cover every document once.",
        "Check the validation size is val_fraction of the documents, within one.",
        "Follow each side back to the permutation it was taken from: both must come from the same one.",
    )),
    "shuffle-same-every-epoch": K("the order of each epoch", "data", ("data.batches-reshuffle",), (
        "Call batches for epochs 0, 1 and 2 with one seed and compare the orders: consecutive epochs must "
        "differ.",
        "Call batches twice for the same (epoch, seed): the two orders must be equal.",
        "Print what the shuffle's random state depends on.",
    )),
    "epoch-drops-examples": K("what one epoch covers", "data", ("data.batches-cover-epoch",), (
        "Draw one epoch of 10 examples in batches of 4 and count the examples you get back, and how often "
        "each appears.",
        "Try a batch size that divides the number of examples and one that does not.",
        "Print the batch sizes of an epoch: only the last may be smaller.",
    )),
    "resume-optimizer-state-lost": K("the optimizer state in checkpoints", "checkpoint", (
            "checkpoint.optimizer-state", "checkpoint.matches-uninterrupted"), (
        "Save after a few steps, load into a fresh model and optimizer, and compare optimizer.state_dict() "
        "before and after: every moment and step count must match.",
        "Run k steps, save, resume in fresh objects and finish; compare the final parameters with a run that "
        "never stopped.",
        "Print the first update after a resume against the uninterrupted run's: Adam's bias correction shows "
        "when its step count starts again.",
    )),
    "resume-step-off-by-one": K("the step number in checkpoints", "checkpoint", (
            "checkpoint.resume-step", "checkpoint.matches-uninterrupted"), (
        "Save after exactly 3 optimizer steps and print what load_checkpoint returns: the number of steps "
        "done.",
        "Log the step numbers a stopped-and-resumed run executes: none repeated, none skipped.",
        "Compare the lr the resumed run uses at its first step with the uninterrupted run's at that step.",
    )),
    "resume-rng-lost": K("the RNG state in checkpoints", "checkpoint", (
            "checkpoint.rng-state", "checkpoint.matches-uninterrupted"), (
        "Compare torch.get_rng_state() right after load_checkpoint with the state when the checkpoint was "
        "saved, after drawing some random numbers in between.",
        "With dropout on, resume in fresh objects and compare the next step's loss with the run that never "
        "stopped.",
        "List everything the checkpoint holds and ask what else the next step depends on.",
    )),
}

# Kinds a candidate names in the same words ("the gradient accumulation", "the schedule", "the norm",
# "the KV cache"): a note naming one of them while the scenario planted another is about the planted one.
RELATED: tuple[frozenset[str], ...] = (
    frozenset({"grad-accum-not-divided", "grad-accum-token-mean", "accum-micro-batch-mean", "accum-not-divided",
               "accum-zero-grad-inside"}),
    frozenset({"lr-schedule-wrong", "cosine-schedule-wrong", "warmup-skips-first", "schedule-horizon-wrong"}),
    frozenset({"label-no-shift", "label-double-shift", "collate-shift-wrong"}),
    frozenset({"ignore-index-wrong", "pad-in-loss", "eos-masked-as-pad"}),
    frozenset({"clip-after-step", "clip-wrong-place", "amp-clip-before-unscale"}),
    frozenset({"amp-clip-before-unscale", "amp-step-bypasses-scaler"}),
    frozenset({"eval-mode-not-restored", "eval-train-not-restored", "eval-dropout-on", "dropout-at-eval"}),
    frozenset({"decay-on-vectors", "decay-not-decoupled", "params-missing-from-optimizer"}),
    frozenset({"resume-optimizer-state-lost", "resume-step-off-by-one", "resume-rng-lost"}),
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
