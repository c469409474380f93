"""Attention seen through the torch calls of a forward pass, whatever the modules are called.

Every softmax over a (..., T, T) tensor is an attention matrix; the matmul its scores came from is
the query-key product, and its first operand's last size is the head size. A call of
scaled_dot_product_attention is attention too, with the scale it was given. Only when neither is
seen does the scale probe fall back to nanoGPT's structure (attn.c_attn, attn.c_proj, n_head).
"""

import math

import torch
import torch.nn.functional as F

from .loading import build_model, forward, tokens
from .tracing import Trace, find_matmul, scale_factor

_sdpa = F.scaled_dot_product_attention  # bound before candidate code is imported

BLOCK, C = 12, 48


def traced_forward(model, idx):
    """The trace of one forward pass without gradients; trace.logits is what it returned."""
    with Trace() as trace, torch.no_grad():
        trace.logits = forward(model, idx)[0]
    return trace


def _square(t):
    return t.dim() >= 2 and tuple(t.shape[-2:]) == (BLOCK, BLOCK)


def softmax_calls(trace):
    return [c for c in trace.named("softmax") if c.inputs and _square(c.inputs[0]) and c.outputs]


def attention_rows(mods):
    """Every attention matrix of a forward pass: worst |row sum - 1| and largest probability above
    the diagonal."""
    trace = traced_forward(build_model(mods["model"]), tokens((2, BLOCK), seed=40))
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


def attention_scale(mods):
    """The scale of every attention's scores against 1/sqrt(head size): for softmax attention from two
    forward passes on different tokens, for scaled_dot_product_attention from its arguments."""
    model = build_model(mods["model"])
    first, second = (_sites(traced_forward(model, tokens((2, BLOCK), seed=s))) for s in (41, 42))
    if not first:
        return _nanogpt_fallback(model)
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


def _blocks(model):
    h = getattr(getattr(model, "transformer", None), "h", None)
    return list(h) if isinstance(h, torch.nn.ModuleList) else []


def _nanogpt_attention(block):
    """The block's attention module if it has c_attn (C -> 3C), c_proj (C -> C) and n_head."""
    attn = getattr(block, "attn", None)
    c_attn, c_proj = getattr(attn, "c_attn", None), getattr(attn, "c_proj", None)
    if not (isinstance(c_attn, torch.nn.Linear) and isinstance(c_proj, torch.nn.Linear)
            and isinstance(getattr(attn, "n_head", None), int)):
        return None
    if c_attn.in_features != C or c_attn.out_features != 3 * C or c_proj.in_features != C:
        return None
    return attn


def _reference_output(attn, x):
    n_head = attn.n_head
    q, k, v = attn.c_attn(x).split(C, dim=2)
    B, T, hs = x.size(0), x.size(1), C // n_head
    q, k, v = (t.view(B, T, n_head, hs).transpose(1, 2) for t in (q, k, v))
    y = _sdpa(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
    return attn.c_proj(y)


def _nanogpt_fallback(model):
    """No attention call was seen (e.g. a hand-written exp-normalisation): for nanoGPT-shaped
    attention modules, their output against scaled dot-product attention of their own projections."""
    modules = [a for a in (_nanogpt_attention(b) for b in _blocks(model)) if a is not None]
    x = torch.randn(2, BLOCK, C, generator=torch.Generator().manual_seed(41), dtype=torch.float64)
    diffs = []
    with torch.no_grad():
        for attn in modules:
            try:
                out = attn(x)
            except TypeError:  # wants other arguments: a different design, not a bug
                continue
            if isinstance(out, torch.Tensor) and out.shape == x.shape:
                ref = _reference_output(attn, x)
                diffs.append(float((out - ref).abs().max() / (1.0 + ref.abs().max())))
    if not diffs:
        return {"applicable": False}
    return {"applicable": True, "observed": "structure", "score_diff": None, "output_diff": max(diffs)}
