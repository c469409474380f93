"""Top-p (nucleus) sampling, judged by the distributions handed to torch.multinomial.

gpt-v1's recorder stands in for torch.multinomial and answers the argmax, so every sampler draws the
same tokens; the distributions are compared as sorted values (a sampler may sort the probabilities and
sample a rank, as Meta's sample_top_p does), against the nucleus of the model's own full-forward
distribution: the smallest set of most likely tokens whose mass reaches p.
"""

import torch
from dojo_harness.errors import describe
from dojo_harness.generation_probes import SamplingRecorder
from dojo_harness.loading import tokens

from .loading import build_llama, call

_softmax = torch.softmax
_sort = torch.sort

CASES = (("p0.9", 1.0, 0.9), ("p0.5-peaked", 0.03, 0.5), ("p1.0", 1.0, 1.0))


def nucleus(logits, temperature, top_p):
    """The expected distribution, sorted in descending order, and the nearest gap between a prefix's
    mass and p (a step whose gap is tiny cannot tell an off-by-one from rounding)."""
    probs = _softmax(logits.double() / temperature, dim=-1)
    sorted_probs = _sort(probs, dim=-1, descending=True).values
    if top_p >= 1.0:
        return sorted_probs, 1.0
    mass_before = sorted_probs.cumsum(dim=-1) - sorted_probs
    kept = torch.where(mass_before < top_p, sorted_probs, torch.zeros_like(sorted_probs))
    gap = float((sorted_probs.cumsum(dim=-1) - top_p).abs().min())
    return kept / kept.sum(dim=-1, keepdim=True), gap


def _case(model, prompt, new_tokens, temperature, top_p):
    with SamplingRecorder() as rec:
        out = model.generate(prompt.clone(), new_tokens, temperature=temperature, top_p=top_p,
                             generator=torch.Generator().manual_seed(0))
    T0 = prompt.size(1)
    case = {"calls": len(rec.probs), "shape": list(out.shape), "expected_shape": [prompt.size(0), T0 + new_tokens]}
    if case["shape"] != case["expected_shape"]:
        return case
    diffs, kept, expected_kept, top = [], [], [], 0.0
    for s in range(min(new_tokens, len(rec.probs))):
        with torch.no_grad():
            logits, _ = call(model, out[:, : T0 + s])
        expected, gap = nucleus(logits[:, -1, :], temperature, top_p)
        seen = _sort(rec.probs[s], dim=-1, descending=True).values
        if seen.shape != expected.shape or gap < 1e-9:
            continue
        diffs.append(float((seen - expected).abs().max()))
        kept.append(int((seen > 0).sum(dim=-1).max()))
        expected_kept.append(int((expected > 0).sum(dim=-1).max()))
        top = max(top, float(_softmax(logits[:, -1, :].double() / temperature, dim=-1).max()))
    case.update({"compared": len(diffs), "prob_diff": max(diffs) if diffs else None, "kept": kept,
                 "expected_kept": expected_kept, "top_prob": top})
    return case


def top_p(mods):
    """Nucleus distributions at p = 0.9, at p = 0.5 with a peaked distribution (one token above p), and
    at p = 1.0 (which must change nothing)."""
    model = build_llama(mods["model"])
    prompt = tokens((2, 5), seed=120)
    results = {}
    for name, temperature, p in CASES:
        try:
            results[name] = _case(model, prompt, 4, temperature, p)
        except Exception as exc:
            results[name] = {"exception": describe(exc, mods.get("_dir"))}
    return results
