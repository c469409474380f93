"""gpt-v1's attention-scale probe: the scale of every attention's scores against 1/sqrt(head size),
from the calls a forward pass makes (lm_probes/attention_probes.py finds them). Only when none is
seen does it fall back to nanoGPT's structure (attn.c_attn, attn.c_proj, n_head), and then to
probabilities found by their use (probability_sites: a hand-written softmax, one head at a time).
"""

import math

import torch
import torch.nn.functional as F
from lm_probes.attention_probes import BLOCK, C, _sites, _softmax_scale, probability_sites
from lm_probes.loading import build_model, tokens
from lm_probes.modules import call_chains, module_table, read_result
from lm_probes.tracing import traced_forward


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
