"""Attention seen through the torch calls of a forward pass, whatever the modules are called.

The agent records the calls (agent_tracing.py) and reports module facts; which softmax is attention,
its rows and its scores' sites are found and computed here, in the judge.

Every softmax over a (..., T, T) tensor is an attention matrix; the matmul its scores came from is
the query-key product, and its first operand's last size is the head size. A call of
scaled_dot_product_attention is attention too, with the scale it was given. probability_sites finds
probabilities by their use (a hand-written softmax, one head at a time). Each interface's scale probe
(gpt-v1's scale_probes.py, llama-v1's rotary_probes.py) builds on these sites.
"""

import math

import torch

from .loading import build_model, tokens
from .tracing import MATMUL, find_matmul, scale_factor, traced_forward

BLOCK, C = 12, 48


def _square(t):
    return t.dim() >= 2 and tuple(t.shape[-2:]) == (BLOCK, BLOCK)


def softmax_calls(trace):
    return [c for c in trace.named("softmax") if c.inputs and _square(c.inputs[0]) and c.outputs]


def attention_rows(session):
    """Every attention matrix of a forward pass: worst |row sum - 1| and largest probability above
    the diagonal."""
    trace = traced_forward(build_model(session), tokens((2, BLOCK), seed=40))
    calls = softmax_calls(trace)
    if not calls:
        return {"applicable": False}
    future = torch.ones(BLOCK, BLOCK, dtype=torch.bool).triu(1)
    row_error, above = 0.0, 0.0
    for call in calls:
        probs = call.outputs[0].detach().double()
        row_error = max(row_error, float((probs.sum(dim=-1) - 1.0).abs().max()))
        above = max(above, float(probs[..., future].abs().max()))
    return {"applicable": True, "matrices": len(calls), "row_error": row_error, "above_diagonal": above}


def _sites(trace):
    """('softmax', scores, product, factor, head size) or ('sdpa', scale, head size) per attention."""
    sites, attention = [], {id(c) for c in softmax_calls(trace)}
    for call in trace.calls:
        if call.name == "scaled_dot_product_attention":
            q = call.args[0] if call.args else call.kwargs.get("query")
            k = call.args[1] if len(call.args) > 1 else call.kwargs.get("key")
            scale = call.kwargs.get("scale", call.args[6] if len(call.args) > 6 else None)
            hs = q.size(-1)
            scale = 1.0 / math.sqrt(hs) if scale is None else float(scale)
            sites.append(("sdpa", scale * scale_factor(trace, q) * scale_factor(trace, k), hs))
        elif id(call) in attention:
            product = find_matmul(trace, call.inputs[0], BLOCK)
            if product is None:
                continue
            q, k = product.inputs
            hs = round(q.numel() * BLOCK / product.outputs[0].numel())
            factor = scale_factor(trace, q) * scale_factor(trace, k)
            if hs >= 1 and factor != 0.0:
                sites.append(("softmax", call.inputs[0], product.outputs[0], factor, hs))
    return sites


def _centred_lower(scores):
    """Scores on and below the diagonal minus each row's first score (softmax ignores row constants)."""
    lower = torch.ones(BLOCK, BLOCK, dtype=torch.bool).tril()
    s = scores.detach().double()
    return (s - s[..., :1])[..., lower]


def _softmax_scale(first, second):
    """Scale of the scores against the q k^T product of the unscaled q and k (the matmul's product
    divided by the constant factors already applied to q or k): the difference between two inputs
    cancels whatever does not depend on the input (masks, position biases such as ALiBi)."""
    _, s1, p1, factor, hs = first
    _, s2, p2, _, _ = second
    ds = _centred_lower(s1) - _centred_lower(s2)
    dp = (_centred_lower(p1) - _centred_lower(p2)) / factor
    keep = torch.isfinite(ds) & torch.isfinite(dp)
    ds, dp = ds[keep], dp[keep]
    if not dp.numel() or float(dp.abs().max()) == 0.0:
        return None
    measured = float((ds * dp).sum() / (dp * dp).sum())
    expected = 1.0 / math.sqrt(hs)
    diff = float((ds - expected * dp).abs().max() / (expected * dp).abs().max())
    return {"diff": diff, "scale": measured, "head_size": hs}


def probability_sites(trace, T):
    """('sdpa', scale, head size) or ('softmax', log-probabilities, q k^T, factor, head size) per attention,
    found without a softmax call: the probabilities are the first operand of a product with the values,
    a non-negative (..., T, T) tensor computed from a query-key product; their logarithm is the scores up
    to a per-row constant, whatever computed the softmax (an exp over a sum, one head at a time)."""
    sites: list[tuple] = []
    for c in trace.calls:
        if c.name == "scaled_dot_product_attention":
            q = c.args[0] if c.args else c.kwargs.get("query")
            k = c.args[1] if len(c.args) > 1 else c.kwargs.get("key")
            scale = c.kwargs.get("scale", c.args[6] if len(c.args) > 6 else None)
            hs = q.size(-1)
            scale = 1.0 / math.sqrt(hs) if scale is None else float(scale)
            sites.append(("sdpa", scale * scale_factor(trace, q) * scale_factor(trace, k), hs))
            continue
        if c.name not in MATMUL or len(c.inputs) != 2 or not c.outputs:
            continue
        probs, values = c.inputs
        if not (probs.dim() >= 2 and tuple(probs.shape[-2:]) == (T, T) and values.size(-2) == T):
            continue
        if float(probs.min()) < 0.0:  # queries times keys, not probabilities times values
            continue
        product = find_matmul(trace, probs, T)
        if product is None or product is c:
            continue
        q, k = product.inputs
        hs = round(q.numel() * T / product.outputs[0].numel())
        factor = scale_factor(trace, q) * scale_factor(trace, k)
        if hs >= 1 and factor != 0.0:
            logp = probs.detach().double().clamp_min(1e-300).log()
            sites.append(("softmax", logp, product.outputs[0], factor, hs))
    return sites
