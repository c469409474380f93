"""Rotary positions and attention scores, seen through the torch calls of a forward pass.

The query-key product of an attention is the matmul/einsum (or scaled_dot_product_attention call)
whose operands carry a (T, head_dim) slice and whose output ends in (T, T); its operands are the
queries and keys as attention uses them, after the rotation. Nothing is found by module or function
name, so a hand-written softmax, a per-head loop or complex-number rotary code is seen the same way.

Judge side: the agent records the calls of a forward pass with their tensors (lm_probes'
agent_tracing.py); finding the products and every measurement happen here, on that record.
"""

import math

import torch
from lm_probes.attention_probes import _softmax_scale, probability_sites
from lm_probes.loading import tokens
from lm_probes.tracing import MATMUL, traced_forward

from .loading import build_llama

HEAD_DIM, THETA = 12, 10000.0


def _has_axes(t, T):
    return isinstance(t, torch.Tensor) and t.is_floating_point() and T in t.shape and HEAD_DIM in t.shape


def qk_sites(trace, T):
    """[(q, k, call)] for every query-key product of a forward pass on T tokens (T != HEAD_DIM)."""
    sites = []
    for c in trace.calls:
        if c.name == "scaled_dot_product_attention":
            q = c.args[0] if c.args else c.kwargs.get("query")
            k = c.args[1] if len(c.args) > 1 else c.kwargs.get("key")
            sites.append((q, k, c))
        elif c.name in MATMUL and len(c.inputs) == 2 and c.outputs:
            out = c.outputs[0]
            if out.dim() >= 2 and tuple(out.shape[-2:]) == (T, T) and all(_has_axes(t, T) for t in c.inputs):
                sites.append((c.inputs[0], c.inputs[1], c))
    return sites


def _rows(t, T):
    """t with its position axis first and head_dim last: (T, rows, HEAD_DIM)."""
    t = t.detach().double()
    t_axis = max(i for i, n in enumerate(t.shape) if n == T)  # (.., T, hd) or k^T's (.., hd, T)
    d_axis = max(i for i, n in enumerate(t.shape) if n == HEAD_DIM and i != t_axis)
    rest = [i for i in range(t.dim()) if i not in (t_axis, d_axis)]
    return t.permute(t_axis, *rest, d_axis).reshape(T, -1, HEAD_DIM)


def _rotate(x0, T, layout, sign):
    """x0 (rows, hd) rotated to every position 0..T-1 with the standard frequencies: (T, rows, hd)."""
    half = HEAD_DIM // 2
    inv_freq = 1.0 / (THETA ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.float64) / HEAD_DIM))
    angles = sign * torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)[:, None, :]  # (T, 1, hd/2)
    cos, sin = angles.cos(), angles.sin()
    if layout == "interleaved":
        a, b = x0[..., 0::2], x0[..., 1::2]
        return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)
    a, b = x0[..., :half], x0[..., half:]
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)


def _frequency_residual(x):
    """How far the worst channel of x (T, rows, hd) is, over the positions, from a sum of the cosine and
    sine of ONE standard frequency theta^(-2i/head_dim), whichever fits it best (relative to x's
    largest entry). Any rotary layout turns each channel at one pair's frequency; wrong frequencies
    leave channels that none of them fits."""
    T = x.size(0)
    series = x.reshape(T, -1)  # (T, channels of every row)
    t = torch.arange(T, dtype=torch.float64)
    inv_freq = 1.0 / (THETA ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.float64) / HEAD_DIM))
    residuals = []
    for w in inv_freq:
        basis = torch.stack((torch.cos(w * t), torch.sin(w * t)), dim=1)  # (T, 2)
        residuals.append((series - basis @ (torch.linalg.pinv(basis) @ series)).norm(dim=0))
    best = torch.stack(residuals).amin(dim=0)  # per channel, the frequency that fits it best
    return float(best.max()) / (float(x.abs().max()) or 1.0)


def rotary(session, T=8):
    """On one repeated token (so every position's query and key are one vector before rotation), the
    queries and keys each attention uses at position t: their size against position 0's (a rotation
    keeps it), their distance from position 0's vector rotated by t times the standard frequencies
    theta^(-2i/head_dim), in either pair layout (interleaved or half-split) and either direction, and
    whether each channel turns at one of those frequencies at all. Also the logits' spread over the
    positions: attention averages values that are one vector too, so every position's output is the
    same unless the values carry their position.

    The rotation is read in the first attention only: its queries and keys come straight from the token's
    embedding, so before the rotation they are one vector at every position whatever else is wrong. In
    later layers they are only if the layers before were right (values that carry their position make
    them differ), and one bug would fail every rotary test."""
    model = build_llama(session)
    idx = torch.full((1, T), 5, dtype=torch.long)
    trace = traced_forward(model, idx)
    sites = qk_sites(trace, T)
    if not sites:
        return {"applicable": False}
    logits = trace.logits.detach().double() if trace.logits is not None else None
    repeat_diff = None
    if logits is not None and logits.dim() == 3 and logits.size(1) == T:
        repeat_diff = float((logits - logits[:, :1]).abs().max()) / (float(logits.abs().max()) or 1.0)
    norm_diff, rotation_diff, frequency_diff, layouts = 0.0, 0.0, 0.0, set()
    for q, k, _ in sites[:1]:
        for t in (q, k):
            x = _rows(t, T)
            scale = float(x.abs().max()) or 1.0
            frequency_diff = max(frequency_diff, _frequency_residual(x))
            norms = x.norm(dim=-1)
            norm_diff = max(norm_diff, float(((norms - norms[:1]).abs() / (norms[:1] + 1e-30)).max()))
            best, name = math.inf, None
            for layout in ("interleaved", "half-split"):
                for sign in (1.0, -1.0):
                    diff = float((x - _rotate(x[0], T, layout, sign)).abs().max()) / scale
                    if diff < best:
                        best, name = diff, layout
            rotation_diff = max(rotation_diff, best)
            layouts.add(name)
    return {"applicable": True, "sites": len(sites), "norm_diff": norm_diff, "rotation_diff": rotation_diff,
            "frequency_diff": frequency_diff, "repeat_logits_diff": repeat_diff, "layouts": sorted(layouts)}


def attention_scale(session, T=12):
    """The scale of every attention's scores against 1/sqrt(head size), from two forward passes on
    different tokens (softmax attention of any kind) or from the arguments of
    scaled_dot_product_attention."""
    model = build_llama(session)
    first, second = (probability_sites(traced_forward(model, tokens((2, T), seed=s)), T) for s in (41, 42))
    if not first or len(first) != len(second) or any(a[0] != b[0] for a, b in zip(first, second, strict=True)):
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
