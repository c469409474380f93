"""Top-p (nucleus) sampling, judged by the distributions handed to torch.multinomial.

In the agent, a recorder stands in for torch.multinomial and answers the argmax, so every sampler
draws the same tokens, and returns the weights it was handed as they were (lm_probes'
agent_generation.py). Here they are normalised
and compared as sorted values (a sampler may sort the probabilities and sample a rank, as Meta's
sample_top_p does) against the nucleus of the model's own full-forward distribution, from logits the
agent returns for the tokens generated so far: the smallest set of most likely tokens whose mass
reaches p.
"""

import torch
from dojo_kit.remote import ObservationError, tensor
from lm_probes.errors import describe
from lm_probes.generation_probes import MAX_DRAWS, _distribution
from lm_probes.loading import tokens

from .loading import build_llama

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


def sample_recorded(model, prompt, new_tokens, **kwargs):
    """(tokens, [distribution per torch.multinomial call]) of the candidate's generate, seeded with 0."""
    mode = model.sync()
    out = model.session.call("generate_recorded", handle=model.handle, tokens=prompt, max_new_tokens=new_tokens,
                             kwargs=kwargs, seed=0, **mode)
    weights = out.get("weights")
    if not isinstance(weights, list) or len(weights) > MAX_DRAWS:
        raise ObservationError("the sampled distributions did not come back")
    return tensor(out.get("tokens"), "the generated tokens"), [_distribution(w) for w in weights]


def _case(model, prompt, new_tokens, temperature, top_p):
    out, probs = sample_recorded(model, prompt, new_tokens, temperature=temperature, top_p=top_p)
    T0 = prompt.size(1)
    case = {"calls": len(probs), "shape": list(out.shape), "expected_shape": [prompt.size(0), T0 + new_tokens]}
    if case["shape"] != case["expected_shape"]:
        return case
    diffs, kept, expected_kept, top = [], [], [], 0.0
    for s in range(min(new_tokens, len(probs))):
        logits, _ = model(out[:, : T0 + s])
        expected, gap = nucleus(logits[:, -1, :], temperature, top_p)
        seen = _sort(probs[s], dim=-1, descending=True).values
        if seen.shape != expected.shape or gap < 1e-9:
            continue
        diffs.append(float((seen - expected).abs().max()))
        kept.append(int((seen > 0).sum(dim=-1).max()))
        expected_kept.append(int((expected > 0).sum(dim=-1).max()))
        top = max(top, float(_softmax(logits[:, -1, :].double() / temperature, dim=-1).max()))
    case.update({"compared": len(diffs), "prob_diff": max(diffs) if diffs else None, "kept": kept,
                 "expected_kept": expected_kept, "top_prob": top})
    return case


def top_p(session):
    """Nucleus distributions at p = 0.9, at p = 0.5 with a peaked distribution (one token above p), and
    at p = 1.0 (which must change nothing)."""
    model = build_llama(session)
    prompt = tokens((2, 5), seed=120)
    results = {}
    for name, temperature, p in CASES:
        try:
            results[name] = _case(model, prompt, 4, temperature, p)
        except Exception as exc:
            results[name] = {"exception": describe(exc)}
    return results
