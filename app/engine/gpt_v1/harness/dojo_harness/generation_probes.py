"""Probes on generate(): context cropping, sampling from the last position, temperature, top-k.

torch.multinomial is replaced during these probes by a recorder that returns the argmax of the
probabilities it is given. The checks compare those probabilities with softmax of the model's own
last-position logits, so two nearly tied logits can never make a correct model fail.
"""

import torch

from .errors import describe
from .loading import build_model, forward, tokens

_softmax = torch.softmax
_topk = torch.topk
_real_multinomial = torch.multinomial
_real_tensor_multinomial = torch.Tensor.multinomial


class SamplingRecorder:
    """Context manager that records every distribution handed to torch.multinomial."""

    def __init__(self):
        self.probs = []

    def _record(self, probs, num_samples=1, replacement=False, *, generator=None, out=None):
        p = probs.detach().double().clone()
        total = p.sum(dim=-1, keepdim=True)
        if bool((p >= 0).all()) and bool((total > 0).all()):
            # torch.multinomial draws in proportion to its weights: the distribution is the weights
            # normalised, whether or not the sampler normalised them itself
            p = p / total
        self.probs.append(p.reshape(-1, p.size(-1)) if p.dim() > 1 else p.unsqueeze(0))
        choice = p.argmax(dim=-1, keepdim=True)
        return choice.expand(*choice.shape[:-1], num_samples).clone()

    def __enter__(self):
        torch.multinomial = self._record
        torch.Tensor.multinomial = lambda probs, *a, **k: self._record(probs, *a, **k)
        return self

    def __exit__(self, *exc):
        torch.multinomial = _real_multinomial
        torch.Tensor.multinomial = _real_tensor_multinomial
        return False


def _expected_probs(model, context, block_size, temperature, top_k):
    with torch.no_grad():
        logits, _ = forward(model, context[:, -block_size:])
    z = logits[:, -1, :].double() / temperature
    if top_k is not None:
        kth = _topk(z, top_k, dim=-1).values[:, [-1]]
        z = z.masked_fill(z < kth, float("-inf"))
    return _softmax(z, dim=-1), logits[:, -1, :].double()


def _sampling_case(model, prompt, new_tokens, *, temperature, top_k, block_size=12):
    """Run generate under the recorder and compare each recorded distribution with the expected one."""
    seen_lengths = []
    hook = model.register_forward_pre_hook(lambda m, args: seen_lengths.append(int(args[0].shape[1])))
    try:
        with SamplingRecorder() as rec:
            out = model.generate(prompt.clone(), new_tokens, temperature=temperature, top_k=top_k,
                                 generator=torch.Generator().manual_seed(0))
    finally:
        hook.remove()
    B, T0 = prompt.shape
    case = {"shape": list(out.shape), "expected_shape": [B, T0 + new_tokens],
            "prefix_kept": bool(out.shape[0] == B and torch.equal(out[:, :T0], prompt)),
            "max_context": max(seen_lengths) if seen_lengths else None, "calls": len(rec.probs)}
    diffs, nonzero, greedy_ok = [], [], True
    if list(out.shape) == case["expected_shape"]:
        for s in range(new_tokens):
            expected, last_logits = _expected_probs(model, out[:, : T0 + s], block_size, temperature, top_k)
            if s < len(rec.probs) and rec.probs[s].shape == expected.shape:
                diffs.append(float((rec.probs[s] - expected).abs().max()))
                nonzero.append(int((rec.probs[s] > 0).sum(dim=-1).max()))
            chosen = out[:, T0 + s]
            best = last_logits.max(dim=-1).values
            tol = 1e-9 * (1 + best.abs())
            greedy_ok &= bool((last_logits.gather(1, chosen.unsqueeze(1)).squeeze(1) >= best - tol).all())
    case["prob_diff"] = max(diffs) if diffs else None
    case["compared"] = len(diffs)
    case["max_nonzero"] = max(nonzero) if nonzero else None
    case["tokens_are_argmax"] = greedy_ok
    return case


def generation(mods):
    """Crop (2 * block_size new tokens from a full prompt), T=1 sampling, temperatures, top-k, greedy."""
    model = build_model(mods["model"])
    full = tokens((2, 12), seed=30)
    short = tokens((2, 5), seed=31)
    results = {}
    for name, temperature, top_k, prompt, n in (
        ("crop", 1.0, None, full, 24), ("plain", 1.0, None, short, 4),
        ("t0.5", 0.5, None, short, 4), ("t2", 2.0, None, short, 4),
        ("topk5", 1.0, 5, short, 4), ("greedy", 1.0, 1, short, 6),
    ):
        try:
            results[name] = _sampling_case(model, prompt, n, temperature=temperature, top_k=top_k)
        except Exception as exc:
            results[name] = {"exception": describe(exc, mods.get("_dir"))}
    return results


def seeded_reproducible(mods):
    """With dropout configured and eval mode, two generations with the same seed agree."""
    model = build_model(mods["model"], dropout=0.3)
    prompt = tokens((2, 4), seed=32)
    outs = [model.generate(prompt.clone(), 8, generator=torch.Generator().manual_seed(5)) for _ in range(2)]
    return {"equal": bool(torch.equal(outs[0], outs[1]))}
