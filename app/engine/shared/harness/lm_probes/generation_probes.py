"""Probes on generate(): context cropping, sampling from the last position, temperature, top-k.

The agent runs the candidate's generate with torch.multinomial replaced by a recorder that answers
with the most likely token (agent_generation.py) and returns every weight tensor it was handed. The
judge normalises them and compares them with its own softmax of the model's last-position logits (a
forward request on the generated prefix), so two nearly tied logits can never make a correct model fail.
"""

import torch
from dojo_kit.remote import ObservationError, tensor

from .errors import describe
from .loading import build_model, tokens

_softmax = torch.softmax
_topk = torch.topk
MAX_DRAWS = 1000


def _last_logits(model, contexts):
    """The model's logits at the last position of each context (one forward request for all)."""
    mode = model.sync()
    out = model.session.call("forwards", handle=model.handle, inputs=contexts, **mode).get("logits")
    if not isinstance(out, list) or len(out) != len(contexts):
        raise ObservationError("the logits did not all come back")
    return [tensor(logits, "the logits")[:, -1, :] for logits in out]


def _expected_probs(last, temperature, top_k):
    z = last.double() / temperature
    if top_k is not None:
        kth = _topk(z, top_k, dim=-1).values[:, [-1]]
        z = z.masked_fill(z < kth, float("-inf"))
    return _softmax(z, dim=-1), last.double()


def _distribution(weights):
    """What torch.multinomial draws from: the weights normalised (when they are non-negative with a
    positive total; otherwise as they are, so the comparison fails)."""
    p = tensor(weights, "a sampling distribution").double()
    if p.dim() != 2:
        raise ObservationError("a sampling distribution is not a table of rows")
    total = p.sum(dim=-1, keepdim=True)
    if bool((p >= 0).all()) and bool((total > 0).all()):
        p = p / total
    return p


def _generate_recorded(model, prompt, new_tokens, temperature, top_k):
    mode = model.sync()
    out = model.session.call("generate_recorded", handle=model.handle, tokens=prompt, max_new_tokens=new_tokens,
                             kwargs={"temperature": temperature, "top_k": top_k}, seed=0, **mode)
    weights, lengths = out.get("weights"), out.get("lengths")
    if not isinstance(weights, list) or len(weights) > MAX_DRAWS or not isinstance(lengths, list):
        raise ObservationError("the generation's observations did not come back")
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in lengths):
        raise ObservationError("a context length is not a number")
    return tensor(out.get("tokens"), "the generated tokens"), [_distribution(w) for w in weights], lengths


def _sampling_case(model, prompt, new_tokens, *, temperature, top_k, block_size=12):
    """Run generate under the recorder and compare each recorded distribution with the expected one."""
    out, probs, seen_lengths = _generate_recorded(model, prompt.clone(), new_tokens, temperature, top_k)
    B, T0 = prompt.shape
    case = {"shape": list(out.shape), "expected_shape": [B, T0 + new_tokens],
            "prefix_kept": bool(out.shape[0] == B and torch.equal(out[:, :T0], prompt)),
            "max_context": max(seen_lengths) if seen_lengths else None, "calls": len(probs)}
    diffs, nonzero, greedy_ok = [], [], True
    if list(out.shape) == case["expected_shape"]:
        lasts = _last_logits(model, [out[:, : T0 + s][:, -block_size:] for s in range(new_tokens)])
        for s in range(new_tokens):
            expected, last_logits = _expected_probs(lasts[s], temperature, top_k)
            if s < len(probs) and probs[s].shape == expected.shape:
                diffs.append(float((probs[s] - expected).abs().max()))
                nonzero.append(int((probs[s] > 0).sum(dim=-1).max()))
            chosen = out[:, T0 + s]
            best = last_logits.max(dim=-1).values
            tol = 1e-9 * (1 + best.abs())
            greedy_ok &= bool((last_logits.gather(1, chosen.unsqueeze(1)).squeeze(1) >= best - tol).all())
    case["prob_diff"] = max(diffs) if diffs else None
    case["compared"] = len(diffs)
    case["max_nonzero"] = max(nonzero) if nonzero else None
    case["tokens_are_argmax"] = greedy_ok
    return case


def generation(session):
    """Crop (2 * block_size new tokens from a full prompt), T=1 sampling, temperatures, top-k, greedy."""
    model = build_model(session)
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
            results[name] = {"exception": describe(exc)}
    return results


def seeded_reproducible(session):
    """With dropout configured and eval mode, two generations with the same seed agree."""
    model = build_model(session, dropout=0.3)
    prompt = tokens((2, 4), seed=32)
    outs = [model.generate(prompt.clone(), 8, seed=5) for _ in range(2)]
    return {"equal": bool(torch.equal(outs[0], outs[1]))}
