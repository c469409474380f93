"""Attention seen through the torch calls of a forward pass, whatever the modules are called.

The agent records the calls (agent_tracing.py) and reports module facts; which softmax is attention,
its rows, its scale and the fallback's reference output are found and computed here, in the judge.

Every softmax over a (..., T, T) tensor is an attention matrix; the matmul its scores came from is
the query-key product, and its first operand's last size is the head size. A call of
scaled_dot_product_attention is attention too, with the scale it was given. Only when neither is
seen does the scale probe fall back to nanoGPT's structure (attn.c_attn, attn.c_proj, n_head), and
then to probabilities found by their use (probability_sites: a hand-written softmax, one head at a
time).
"""

import math

import torch
import torch.nn.functional as F

from .loading import build_model, tokens
from .modules import call_chains, module_table, read_result
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


def attention_scale(session):
    """The scale of every attention's scores against 1/sqrt(head size): for softmax attention from two
    forward passes on different tokens, for scaled_dot_product_attention from its arguments."""
    model = build_model(session)
    first, second = (_sites(traced_forward(model, tokens((2, BLOCK), seed=s))) for s in (41, 42))
    if not first:
        fallback = _nanogpt_fallback(model)
        if fallback.get("applicable"):
            return fallback
        first, second = (probability_sites(traced_forward(model, tokens((2, BLOCK), seed=s)), BLOCK)
                         for s in (41, 42))
        if not first:
            return fallback
    if len(first) != len(second) or any(a[0] != b[0] for a, b in zip(first, second, strict=True)):
        return {"applicable": False}
    measured = []
    for a, b in zip(first, second, strict=True):
        if a[0] == "sdpa":
            measured.append({"diff": abs(a[1] * math.sqrt(a[2]) - 1.0), "scale": a[1], "head_size": a[2]})
        else:
            measured.append(_softmax_scale(a, b))
    measured = [m for m in measured if m is not None]
    if not measured:
        return {"applicable": False}
    worst = max(measured, key=lambda m: m["diff"])
    return {"applicable": True, "observed": "calls", "sites": len(measured), "score_diff": worst["diff"],
            "scale": worst["scale"], "head_size": worst["head_size"], "output_diff": None}


def _nanogpt_attentions(modules):
    """Each block's attention module (by the module facts) when it is nanoGPT's: model.transformer.h an
    nn.ModuleList of blocks, each with attn.c_attn (Linear C -> 3C), attn.c_proj (Linear C -> ...) and
    an integer attn.n_head. [(attn, c_attn, c_proj)]."""
    by_name = {name: m for m in modules for name in m.names}
    h = by_name.get("transformer.h")
    if h is None or not h.module_list:
        return []
    found = []
    k = 0
    while f"transformer.h.{k}" in by_name:
        prefix = f"transformer.h.{k}.attn"
        attn, c_attn, c_proj = (by_name.get(prefix + part) for part in ("", ".c_attn", ".c_proj"))
        k += 1
        if attn is None or c_attn is None or c_proj is None or c_attn.linear is None or c_proj.linear is None \
                or attn.n_head is None:
            continue
        if c_attn.linear["in"] != C or c_attn.linear["out"] != 3 * C or c_proj.linear["in"] != C:
            continue
        found.append((attn, c_attn, c_proj))
    return found


def _nanogpt_fallback(model):
    """No attention call was seen (e.g. a hand-written exp-normalisation): for nanoGPT-shaped
    attention modules, their output against scaled dot-product attention of their own projections
    (the projections run in the agent; the attention over them is computed here)."""
    found = _nanogpt_attentions(module_table(model))
    x = torch.randn(2, BLOCK, C, generator=torch.Generator().manual_seed(41), dtype=torch.float64)
    diffs = []
    for attn, c_attn, c_proj in found:
        out_result, qkv_result = call_chains(model, [([attn], x), ([c_attn], x)])
        out = read_result(out_result)
        if not isinstance(out, torch.Tensor) or out.shape != x.shape:  # Refused: wants other arguments
            continue
        qkv = read_result(qkv_result)
        if not isinstance(qkv, torch.Tensor) or qkv.shape[-1] != 3 * C:
            return {"applicable": False}
        n_head = attn.n_head
        q, k, v = qkv.split(C, dim=2)
        B, T, hs = x.size(0), x.size(1), C // n_head
        q, k, v = (t.reshape(B, T, n_head, hs).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
        ref = read_result(call_chains(model, [([c_proj], y)])[0])
        if not isinstance(ref, torch.Tensor) or ref.shape != out.shape:
            return {"applicable": False}
        diffs.append(float((out - ref).abs().max() / (1.0 + ref.abs().max())))
    if not diffs:
        return {"applicable": False}
    return {"applicable": True, "observed": "structure", "score_diff": None, "output_diff": max(diffs)}
