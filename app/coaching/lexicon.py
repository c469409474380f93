"""The words the note reader listens for, in the candidate's own phrasing.

Each entry maps a canonical value to the phrases that name it. Phrases are matched on normalised
text (lower case; hyphens and underscores read as spaces), whole words only; a phrase ending in
"*" also matches any continuation of its last word ("verif*" matches verify, verified, verifying).
Longer phrases win over shorter ones that they contain ("causal mask" before "mask").
"""

from __future__ import annotations

# What the candidate says they did to a bug: caught it, fixed it, or checked that the fix holds.
CLAIMS: dict[str, tuple[str, ...]] = {
    "found": ("caught", "catch*", "found", "find*", "spot*", "notic*", "identif*", "discover*", "tracked down",
              "figured out", "pinpoint*", "diagnos*", "located"),
    "fixed": ("fixed", "fix", "fixing", "correct*", "repair*", "resolv*", "patch*", "sorted out", "solv*",
              "changed", "rewrote", "replaced", "moved", "swapped", "removed", "reordered", "switched"),
    "verified": ("verif*", "confirm*", "validat*", "made sure", "ensur*", "prov*", "double checked",
                 "checked", "tested"),
}

# Words that turn the claim or method after them into its opposite ("I didn't verify").
NEGATORS = ("not", "no", "never", "without", "nor", "didnt", "dont", "doesnt", "couldnt", "wasnt", "werent",
            "havent", "hasnt", "cant", "cannot", "wont", "failed to", "unable to", "forgot to", "skipped",
            "did not", "do not", "could not", "was not", "have not", "not yet", "not sure", "unsure")
NEGATION_WINDOW = 4  # words before a claim or method that a negator may stand in

# Words that make a note vague: the reader cannot tell what was checked or how.
HEDGES = ("sanity check*", "somehow", "stuff", "things", "probably", "maybe", "i think", "i guess", "seemed",
          "looked fine", "looked ok", "looked okay", "looked good", "looked right", "seems fine", "etc",
          "played around", "messed around", "poked around", "trial and error", "kind of", "sort of", "roughly",
          "more or less", "some checks", "a few checks", "a bit")

# Words that put experience in place of evidence ("I've been burned by that before").
EXPERIENCE = ("burned", "burnt", "bitten", "experience", "intuition", "gut feeling", "gut", "seen it before",
              "seen this before", "seen that before", "familiar", "classic", "instinct*", "from memory",
              "i just knew", "obvious*")

# Verification methods a strong write-up names.
METHODS: dict[str, tuple[str, ...]] = {
    "overfit-one-batch": ("overfit*", "over fit*", "single batch", "one batch", "memoris*", "memoriz*"),
    "tiny-run": ("tiny dataset", "tiny data", "small dataset", "small data", "toy data*", "tiny run",
                 "short run", "small run", "quick run", "few steps", "few iterations", "trained it",
                 "trained for", "training run", "ran training", "ran it on", "tiny corpus", "subset of the data"),
    "unit-test-per-module": ("unit test*", "isolat*", "independently", "module by module", "each module",
                             "every module", "each layer", "each component", "per component", "per module",
                             "component by component", "one module at a time", "one at a time", "separately",
                             "each piece"),
    "baseline-comparison": ("baseline", "reference", "compar*", "known good", "ln v", "ln(v)", "log v",
                            "log(v", "ln(vocab", "log(vocab", "expected loss", "expected value",
                            "against the solution"),
    "shape-prints": ("shape*", "size()", "dimension*", "printed the sizes", "print the sizes"),
    "gradient-checks": ("gradient*", "grad", "grads", "requires grad", "backward hook*", "jacobian", "gradcheck",
                        "backprop*"),
    "perturbation": ("perturb*", "randomis*", "randomiz*", "changed a later token", "change a later token",
                     "changing later tokens", "changed the future", "future tokens", "influence"),
    "reading-code": ("read the code", "reading the code", "read through", "code review", "looked at the code",
                     "reviewed the code", "read it", "went through the code", "diffed"),
    "print-debugging": ("print*", "logged", "logging", "debugger", "pdb", "breakpoint*", "inspected"),
    "visualisation": ("plot*", "heatmap*", "heat map*", "visualis*", "visualiz*", "attention map*", "graph*",
                      "curve*"),
    "oracle-loss": ("oracle", "perfect predictor", "one hot", "perfect logits"),
    "seeded-sampling": ("seed*", "reproduc*", "deterministic*", "same output twice", "generator"),
}

# The components of the hidden tests, as candidates name them.
COMPONENTS: dict[str, tuple[str, ...]] = {
    "loss": ("loss function", "cross entropy", "crossentropy", "targets", "target", "labels", "label",
             "next token", "log softmax", "ignore index", "reduction", "padding", "loss"),
    "positional": ("positional", "position*", "wpe", "pos emb*", "pos embedding*", "position table", "rope",
                   "rotary", "rotation*", "rotate half", "freqs cis", "inv freq", "frequenc*", "theta", "start pos"),
    "attention": ("attention", "attn", "causal", "mask*", "look ahead", "lookahead", "heads", "head", "scores",
                  "query", "queries", "keys", "tril", "gqa", "grouped query", "repeat kv", "repeat interleave",
                  "kv heads", "key value heads", "sdpa", "scaled dot product", "is causal"),
    "general": ("shape*", "block*", "residual*", "layernorm", "layer norm", "mlp", "feed forward", "dropout",
                "gelu", "relu", "activation*", "forward pass", "get batch", "data loader", "dataloader", "batches",
                "logits", "lm head", "weight tying", "rmsnorm", "rms norm", "swiglu", "silu", "gate*", "gating",
                "norm eps", "epsilon"),
    "training": ("training loop", "train loop", "train step", "optimizer", "optimiser", "zero grad", "clip*",
                 "evaluate", "eval mode", "train mode", "learning rate", "lr", "accumulat*", "micro batch*",
                 "optimisation step", "optimization step", "warmup", "warm up", "cosine", "schedul*", "get lr",
                 "min lr"),
    "generation": ("generat*", "sampl*", "sampler", "temperature", "top k", "topk", "multinomial", "greedy",
                   "decod*", "kv cache", "cache*", "prefill*", "top p", "topp", "nucleus"),
    "data": ("collate", "collator", "split", "shuffl*", "epoch*", "leak*", "overlap*", "pad id", "pad token"),
    "optimizer": ("weight decay", "decay group*", "param group*", "parameter group*", "adamw", "adam"),
    "evaluation": ("no grad", "inference mode", "validation loss", "val loss", "eval loss"),
    "checkpoint": ("checkpoint*", "resum*", "state dict", "rng state", "save*", "load*"),
}

# Bug kinds of BUG_CATALOG.md (slugs of app/engine/kinds.py), in the words a candidate would use.
KINDS: dict[str, tuple[str, ...]] = {
    "label-no-shift": ("label shift", "labels shift*", "label shifting", "shift the labels", "shifted labels",
                       "unshifted", "not shifted", "labels were not shifted", "off by one in the targets",
                       "off by one in the labels", "off by one target*", "targets equal the inputs",
                       "targets equal inputs", "targets were the inputs", "y = x", "y equals x", "same token"),
    "label-double-shift": ("double shift*", "shifted twice", "shift twice", "two tokens ahead", "t+2",
                           "t + 2", "shifted two"),
    "ignore-index-wrong": ("ignore index", "padding", "pad token*", "minus one", "-1 targets", "masked targets",
                           "padded positions"),
    "dataset-off-by-one": ("last window", "dataset length", "off by one in the data", "randint", "window range",
                           "index range", "windows"),
    "pos-not-added": ("positions not added", "position not added", "positional embedding not added",
                      "positional embeddings not added", "forgot to add the position*", "never added the position*",
                      "pos emb not added", "missing positional"),
    "pos-wrong-slice": ("wrong slice", "position slice", "slice of the position table", "arange(1",
                        "positions start at one"),
    "pos-frozen-zero": ("frozen", "freez*", "requires grad", "positions zero*", "zeroed positions",
                        "positional table zero*", "position table zero*", "positional embeddings zero*",
                        "no grad", "never trained", "untrained positions"),
    "generate-no-crop": ("crop*", "context length", "context window", "longer than block size",
                         "past block size", "block size in generate"),
    "mask-missing": ("no mask", "mask missing", "missing mask", "without a mask", "unmasked"),
    "mask-future-leak": ("causal mask", "look ahead", "lookahead", "future leak*", "leak*", "sees the future",
                         "see the future", "seeing the future", "peek*", "cheat*", "diagonal", "tril",
                         "next token leak*"),
    "mask-flipped": ("flipped mask", "mask flipped", "transposed mask", "mask transposed", "upper triangle"),
    "mask-finite-fill": ("finite fill", "fill value", "1e4", "1e 4", "1e9", "finite mask*", "infinity",
                         "minus infinity", "inf"),
    "mask-polarity": ("polarity", "inverted mask", "mask inverted", "mask backwards"),
    "mask-after-softmax": ("mask after softmax", "mask after the softmax", "masked after the softmax",
                           "masking after softmax", "order of mask and softmax", "mask before softmax",
                           "mask before the softmax"),
    "softmax-wrong-dim": ("softmax dim*", "wrong dim", "softmax over the wrong", "softmax axis",
                          "normalised over the queries", "normalized over the queries", "softmax over queries",
                          "rows sum to one", "rows sum to 1"),
    "attn-scale-wrong": ("scale", "scaling", "scaled", "sqrt", "square root", "head size", "peaky"),
    "heads-no-transpose": ("transpose*", "heads merged", "merging heads", "merge the heads", "split heads",
                           "splitting the heads", "head merge"),
    "batch-mixing": ("batch mixing", "across the batch", "batch leak*", "batch independence",
                     "mixes examples", "mixing examples", "over the batch", "batch dimension"),
    "residual-wrong": ("residual*", "skip connection*"),
    "layernorm-wrong": ("layernorm", "layer norm", "ln f", "final norm", "normalis*", "normaliz*"),
    "dropout-at-eval": ("dropout",),
    "mlp-no-nonlinearity": ("nonlinearity", "non linearity", "nonlinear", "non linear", "activation", "gelu",
                            "relu", "linear mlp"),
    "weight-tying-broken": ("weight tying", "tied weights", "tie the weights", "lm head"),
    "logits-targets-misaligned": ("reshap*", "scrambl*", "misalign*", "flatten*", "view of the logits"),
    "softmax-before-ce": ("softmax before", "double softmax", "softmax twice", "softmax then cross entropy",
                          "probabilities into cross entropy", "softmax into cross entropy"),
    "loss-reduction-wrong": ("reduction", "summed", "sum instead of mean", "sum of the loss", "loss sum*",
                             "averag*", "mean loss"),
    "zero-grad-missing": ("zero grad", "zeroing the grad*", "gradients accumulat*", "accumulating gradients",
                          "stale gradients", "grads accumulat*"),
    "backward-wrong-tensor": ("backward on", "detached", "wrong tensor", "backward of the val"),
    "grad-accum-not-divided": ("gradient accumulation", "grad accumulation", "micro batch*", "microbatch*",
                               "weighted", "unweighted"),
    "lr-schedule-wrong": ("learning rate schedule", "lr schedule", "warmup", "warm up", "get lr", "cosine"),
    "clip-after-step": ("clipping", "clip*", "clip grad norm"),
    "eval-mode-not-restored": ("eval mode", "model eval", "train mode", "model train", "eval()", "train()",
                               "training flag", "mode restored", "restore the mode"),
    "sample-wrong-position": ("last position", "wrong position", "first position", "sampling position",
                              "sequence length"),
    "temperature-wrong": ("temperature",),
    "top-k-broken": ("top k", "topk"),
    "kv-cache-no-mask": ("kv cache", "cache", "prefill"),
    "generate-no-eval": ("seed*", "reproduc*", "generator", "determinism", "deterministic"),
    "crop-off-by-one": ("crop off by one", "off by one in the crop", "crop boundary", "one token too many"),
    "typo-wrong-variable": ("typo*", "wrong variable", "misspel*"),
    "typo-wrong-dim": ("wrong dimension", "wrong size", "k.size", "wrong axis"),
    # H: the modern decoder (llama-v1)
    "rope-ignores-offset": ("cache offset", "kv cache offset", "position offset", "rope offset", "rotary offset",
                            "ignores the offset", "ignored the offset", "ignoring the offset", "start pos*",
                            "absolute position of the new token", "decoded tokens at position 0",
                            "rotated as position 0", "positions restart"),
    "sdpa-causal-in-decode": ("is causal", "top left*", "bottom right*", "chunked prefill", "causal flag",
                              "mask during decod*", "mask in decod*", "mask while decod*", "single query"),
    "cache-write-wrong": ("never written", "never wrote", "not written", "cache write*", "writes to the cache",
                          "wrote to the cache", "cache updat*", "updating the cache", "slot late", "one slot",
                          "wrong slot", "stale cache", "cache index"),
    "cache-after-repeat-kv": ("cache shape*", "cache after repeat*", "cached after repeat*", "cached the repeated",
                              "caches the repeated", "repeated keys", "repeated twice", "repeat kv twice",
                              "cache memory", "n heads in the cache", "cache holds n heads",
                              "cache stores n heads", "instead of n kv heads"),
    "repeat-kv-wrong-axis": ("repeat kv", "repeat interleave", "gqa", "grouped query", "sequence axis",
                             "along the sequence", "along time", "head axis", "shared heads", "head sharing"),
    "rope-on-values": ("rope on v", "rope on the v", "rope on values", "rope on the values", "rope to v",
                       "rope to the values", "rotated the values", "rotating the values", "rotated v", "rotating v",
                       "values rotated", "applied to v", "added to x", "rope added", "added the rope",
                       "absolute embedding"),
    "rope-pairs-mixed": ("rotate half", "half split", "interleav*", "channel pair*", "rotary pair*", "rope pair*",
                         "pairs mixed", "mixed pairs", "pair layout", "neox", "even and odd"),
    "rope-frequencies-wrong": ("frequenc*", "inv freq", "inverse freq*", "theta", "rope theta", "freqs",
                               "exponent", "base 10000"),
    "rmsnorm-wrong": ("rmsnorm", "rms norm", "root mean square", "rms", "subtract* the mean", "mean subtraction",
                      "centred", "centered", "centring", "centering"),
    "rmsnorm-eps-wrong": ("eps", "epsilon", "norm eps", "zero row", "zero vector", "row of zeros"),
    "rmsnorm-gain-wrong": ("gain", "norm weight*", "norm gain", "weight of the norm", "scale parameter"),
    "swiglu-gate-wrong": ("swiglu", "swi glu", "gate*", "gating", "silu", "w3", "value projection",
                          "up projection"),
    "top-p-off-by-one": ("top p", "topp", "nucleus", "cumulative probabilit*", "cumsum", "crossing token",
                         "crosses p"),
    "grad-accum-token-mean": ("token mean", "mean of means", "average of averages", "per token mean",
                              "token count*", "number of tokens", "unequal", "micro batch mean*",
                              "tokens per micro batch"),
    "cosine-schedule-wrong": ("cosine schedule", "cosine decay", "cosine annealing", "min lr",
                              "minimum learning rate", "lr at step 0", "learning rate at step 0",
                              "never reaches min*", "warmup divides"),
}

# Names that contain component words without being about the component ("block_size" is not a block).
IGNORED = ("block size", "batch size", "vocab size", "head size", "n embd", "n head", "n layer", "head dim",
           "n heads", "n kv heads", "n layers", "max seq len", "hidden dim")

# Phrases that claim everything was fixed ("all four bugs", "every bug").
EVERYTHING = ("all the bugs", "all bugs", "every bug", "all of them", "all four", "all three", "all six",
              "all 4", "all 3", "all 6", "everything", "each bug", "all the issues", "all issues")
