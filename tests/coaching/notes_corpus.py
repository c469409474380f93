"""Candidate notes, each on a real grading, with the property the coach's answer to it must have.

Properties (all also get the universal ones: the block's shape and no leak):
- "contradicts": the block flags the claim as not borne out ("note.claim-contradicted" first).
- "supports": the claim agrees with the checks ("note.claim-supported", never contradicted).
- "unverified": the note says it did not verify ("note.claim-unverified").
- "vague": the block asks for specifics ("note.vague").
- "method:<m>": the block answers the named method ("note.method.<m>").
- "skipped:<m>": the method named as not done is suggested ("note.method-skipped").
- "grounded": the steps quote the attempt's own tiny-run numbers (start, ln V, final, baseline).
- "component:<c>": the block is about that component.
- "no-block": an empty note gets no block.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CorpusNote:
    slug: str
    variant: str
    text: str
    expect: tuple[str, ...]
    question: str = "find"


LABEL_LEFT = ("leaky-mask", "mutant:labels-not-shifted")
# The product owner's sample notes, by question.
SAMPLE = {
    "find": "The label shift one I caught fast because I've been burned by that before.",
    "verify": "Ran it on a tiny dataset just to sanity check.",
    "approach": "My approach was basically: isolate each module and test it independently before touching the "
                "full forward pass.",
}

CORPUS: tuple[CorpusNote, ...] = (
    # The product owner's sample, on a leaky-mask submit whose label shift is still broken.
    CorpusNote(*LABEL_LEFT, SAMPLE["find"], ("contradicts", "vague", "component:loss"), "find"),
    CorpusNote(*LABEL_LEFT, SAMPLE["verify"], ("method:tiny-run", "grounded", "vague"), "verify"),
    CorpusNote(*LABEL_LEFT, SAMPLE["approach"], ("method:unit-test-per-module",), "approach"),
    # Claims the checks contradict, in different words.
    CorpusNote("leaky-mask", "mutant:mask-sees-next-token",
               "I fixed the causal mask so nothing can look ahead anymore.", ("contradicts", "component:attention")),
    CorpusNote("leaky-mask", "starter", "All bugs fixed, verified everything.", ("contradicts",)),
    CorpusNote("warm-up", "mutant:pos-not-added", "Found that the positions were never added and fixed that.",
               ("contradicts", "component:positional")),
    CorpusNote("attention-zoo", "mutant:scale-by-width", "The attention scaling was off; I corrected the square root.",
               ("contradicts", "component:attention")),
    CorpusNote("sampler-says", "mutant:temperature-multiplies", "Temperature handling is fixed now.",
               ("contradicts", "component:generation")),
    CorpusNote("training-wheels", "mutant:gradients-accumulate", "I spotted the missing zero_grad and fixed the loop.",
               ("contradicts", "component:training")),
    CorpusNote("label-trouble", "mutant:padding-counted", "Padding positions are ignored in the loss now, verified it.",
               ("contradicts", "component:loss")),
    CorpusNote("block-party", "mutant:dropout-always-on", "Dropout was active at eval; fixed it.",
               ("contradicts", "component:general")),
    CorpusNote("deep-end", "mutant:mask-fill-finite", "Caught the finite fill value in the mask early on.",
               ("contradicts", "component:attention")),
    CorpusNote("sampler-says", "mutant:context-never-cropped", "I fixed the context cropping in generate.",
               ("contradicts", "component:generation")),
    CorpusNote(*LABEL_LEFT, "There was an off-by-one in the targets. I fixed it.", ("contradicts",)),
    CorpusNote("label-trouble", "partial", "Fixed the labels being shifted twice.", ("contradicts",)),
    # Claims the checks support.
    CorpusNote(*LABEL_LEFT, "I caught the look-ahead in the causal mask by perturbing later tokens.",
               ("supports", "method:perturbation")),
    CorpusNote("warm-up", "mutant:softmax-before-loss", "Positional information was missing; fixed it and checked "
               "with a constant-token input.", ("supports",)),
    CorpusNote("training-wheels", "mutant:clip-after-step", "Fixed the zero_grad problem, confirmed with a fresh "
               "gradient comparison.", ("supports",)),
    CorpusNote("block-party", "mutant:residual-from-normalised", "The MLP had no nonlinearity, fixed it.",
               ("supports",)),
    CorpusNote("sampler-says", "mutant:generator-ignored", "top-k was broken; verified exactly k tokens remain.",
               ("supports",)),
    CorpusNote("label-trouble", "partial", "Fixed how the logits were reshaped against the targets.", ("supports",)),
    # Claims the note itself says are not verified.
    CorpusNote("leaky-mask", "starter", "I didn't verify the causal mask, ran out of time.", ("unverified",)),
    CorpusNote("warm-up", "starter", "I'm not sure I fixed the positional embeddings.", ("unverified",)),
    CorpusNote("sampler-says", "starter", "Never confirmed the temperature change.", ("unverified",)),
    # Vague notes.
    CorpusNote("warm-up", "starter", "Poked around until it worked.", ("vague",)),
    CorpusNote("attention-zoo", "starter", "stuff", ("vague",)),
    CorpusNote("block-party", "starter", "Looked fine to me.", ("vague",)),
    CorpusNote("deep-end", "starter", "I think it's probably ok now.", ("vague",)),
    CorpusNote("training-wheels", "starter", "Experience, mostly.", ("vague",)),
    CorpusNote("warm-up", "starter", "", ("no-block",)),
    CorpusNote("warm-up", "starter", "   \n ", ("no-block",)),
    # Methods named.
    CorpusNote("leaky-mask", "starter", "Overfit one batch to loss 0.02 in 200 steps.", ("method:overfit-one-batch",),
               "verify"),
    CorpusNote("label-trouble", "starter", "Compared the initial loss with ln V and the final loss with the baseline.",
               ("method:baseline-comparison",), "verify"),
    CorpusNote("attention-zoo", "starter", "Printed the shapes of q, k and v at every step.",
               ("method:shape-prints",), "verify"),
    CorpusNote("deep-end", "starter", "Checked the gradient on wpe after one backward pass.",
               ("method:gradient-checks",), "verify"),
    CorpusNote("attention-zoo", "mutant:mask-after-softmax", "Plotted the attention heatmap for one head.",
               ("method:visualisation",), "verify"),
    CorpusNote("block-party", "starter", "Read through the code line by line.", ("method:reading-code",), "approach"),
    CorpusNote("sampler-says", "starter", "Seeded the generator and generated twice to compare.",
               ("method:seeded-sampling",), "verify"),
    CorpusNote("label-trouble", "mutant:labels-shifted-twice", "Built an oracle with one-hot logits to test the loss.",
               ("method:oracle-loss",), "verify"),
    CorpusNote("leaky-mask", "starter", "I didn't overfit a single batch this time.", ("skipped:overfit-one-batch",),
               "verify"),
    # Tiny runs, answered with the attempt's own numbers.
    CorpusNote("leaky-mask", "mutant:mask-sees-next-token", "Trained it for a few steps and the loss dropped fast.",
               ("method:tiny-run", "grounded"), "verify"),
    CorpusNote("warm-up", "starter", "Training run on a small dataset, loss went down.",
               ("method:tiny-run", "grounded"), "verify"),
    CorpusNote("deep-end", "partial", "A quick run to make sure it learns at all.", ("method:tiny-run", "grounded"),
               "verify"),
    # Components named in the candidate's words, without a claim.
    CorpusNote("attention-zoo", "starter", "Something about the attention weights looked wrong.",
               ("component:attention",)),
    CorpusNote("sampler-says", "starter", "The sampler output looked repetitive.", ("component:generation",)),
    CorpusNote("training-wheels", "starter", "The optimizer step was my main suspect.", ("component:training",)),
    CorpusNote("label-trouble", "starter", "The cross-entropy numbers were weird.", ("component:loss",)),
    CorpusNote("warm-up", "starter", "Something with the position table.", ("component:positional",)),
    CorpusNote("block-party", "starter", "The residual stream was my suspect.", ("component:general",)),
    # llama-v1: RMSNorm, SwiGLU, rotary positions and the KV cache, in the candidate's words.
    CorpusNote("norm-and-gate", "mutant:rmsnorm-no-eps", "Fixed the RMSNorm epsilon so a zero row stays finite.",
               ("contradicts", "component:general")),
    CorpusNote("norm-and-gate", "mutant:swiglu-gate-dropped", "The SwiGLU gate was dropped; fixed it.",
               ("contradicts", "component:general")),
    CorpusNote("norm-and-gate", "partial", "I fixed the layer norm.", ("contradicts", "component:general")),
    CorpusNote("norm-and-gate", "mutant:rmsnorm-no-eps", "I fixed the SwiGLU gate, verified w3 gets a gradient.",
               ("supports",)),
    CorpusNote("norm-and-gate", "starter", "I found that the RoPE ignores the KV cache offset.",
               ("supports", "component:generation")),
    CorpusNote("norm-and-gate", "starter", "I didn't verify the RMSNorm.", ("unverified",)),
    CorpusNote("norm-and-gate", "starter", "The RMSNorm output looked off.", ("component:general",)),
    CorpusNote("norm-and-gate", "starter", "Checked that every parameter gets a gradient after one backward pass.",
               ("method:gradient-checks",), "verify"),
    CorpusNote("cache-drift", "mutant:rope-from-zero",
               "I found that the RoPE ignores the KV cache offset and fixed it.",
               ("contradicts", "component:generation")),
    CorpusNote("cache-drift", "starter", "The KV cache drifted from the full forward after a few tokens.",
               ("component:generation",)),
    CorpusNote("cache-drift", "starter", "I didn't verify the is_causal flag during decode.", ("unverified",)),
    CorpusNote("rotary-road", "mutant:frequency-exponent", "Fixed the rotary frequencies; theta is right now.",
               ("contradicts", "component:positional")),
    CorpusNote("rotary-road", "mutant:values-rotated", "Something with the rotary embeddings looked wrong.",
               ("component:positional",)),
    CorpusNote("nucleus-and-schedule", "mutant:cosine-stops-short",
               "Fixed the top-p nucleus filter; verified the kept set reaches p.", ("supports",)),
    CorpusNote("nucleus-and-schedule", "mutant:cosine-stops-short", "The warmup and cosine schedule are fixed.",
               ("contradicts", "component:training")),
    CorpusNote("nucleus-and-schedule", "mutant:micro-batch-means-averaged", "I fixed the gradient accumulation.",
               ("contradicts", "component:training")),
    CorpusNote("llama-deep-end", "mutant:warmup-starts-at-zero",
               "Fixed the RMSNorm gain and checked every parameter gets a gradient.", ("supports",)),
    CorpusNote("llama-deep-end", "mutant:causal-flag-for-chunks",
               "The chunked prefill through the cache was fine, I verified it.", ("contradicts",)),
    # A note that quotes its own fix: the answer must not repeat it.
    CorpusNote(*LABEL_LEFT, "Changed y to data[i + 1 : i + 1 + block_size] and then the loss looked fine.",
               ("contradicts", "component:loss")),
)
