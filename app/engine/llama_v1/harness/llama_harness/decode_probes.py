"""Attention inside the calls that go through a cache: which keys a query is given and which it weighs.

Agreement with the full forward (cache_probes.CACHE) says that decoding is wrong, not where: a query
that loses its own key, one that sees only the first key and one rotated as position 0 all break it.
These probes tell them apart. On one repeated token, a prefill of PREFILL tokens, one decoded token,
then a chunk of CHUNK tokens go through one cache; in each call's traced torch calls the judge finds
every attention (scaled_dot_product_attention, or probabilities multiplied with values) and reads

- how many keys each query is given (a preallocated cache may give more, masked),
- how many of them it gives weight to (the keys at its own position and before: position + 1), and
- the decoded query of the first attention, which must be position 0's query rotated by the decoded
  position (on a repeated token every position's query there is one vector before the rotation).

Judge side: the agent only records the calls (lm_probes/agent_tracing.py); every number is computed here.
"""

import math

import torch
from lm_probes.errors import describe
from lm_probes.tracing import MATMUL, traced_forward

from .loading import build_llama
from .rotary_probes import HEAD_DIM, _rotate, _rows

PREFILL, CHUNK, TOKEN, MAX_SEQ_LEN = 5, 3, 5, 32
WEIGHT = 1e-12  # a key "gets weight" above this probability; masked keys get exactly 0


def _sdpa_parts(call):
    """(q, k, probabilities) of a scaled_dot_product_attention call, the probabilities computed here
    from its own arguments (mask, is_causal, scale; key/value heads shared by groups of query heads)."""
    args, kw = call.args, call.kwargs

    def arg(i, name, default=None):
        return args[i] if len(args) > i else kw.get(name, default)

    q, k = arg(0, "query"), arg(1, "key")
    mask, causal, scale = arg(3, "attn_mask"), bool(arg(5, "is_causal", False)), arg(6, "scale")
    qd, kd = q.detach().double(), k.detach().double()
    if kd.dim() >= 3 and qd.dim() >= 3 and qd.size(-3) != kd.size(-3) and qd.size(-3) % kd.size(-3) == 0:
        kd = kd.repeat_interleave(qd.size(-3) // kd.size(-3), dim=-3)
    scale = 1.0 / math.sqrt(qd.size(-1)) if scale is None else float(scale)
    scores = qd @ kd.transpose(-2, -1) * scale
    T, S = scores.shape[-2:]
    if causal:
        scores = scores.masked_fill(~torch.ones(T, S, dtype=torch.bool).tril(), -math.inf)
    if isinstance(mask, torch.Tensor):
        scores = scores.masked_fill(~mask, -math.inf) if mask.dtype == torch.bool else scores + mask.double()
    return q, k, torch.softmax(scores, dim=-1)


def _value_products(trace, T):
    """(probabilities, call) of every product of non-negative (..., T, S) probabilities with values
    (..., S, head_dim): attention however its softmax was computed."""
    found = []
    for c in trace.calls:
        if c.name not in MATMUL or len(c.inputs) != 2 or not c.outputs:
            continue
        probs, values = c.inputs
        if probs.dim() < 2 or probs.size(-2) != T or values.dim() < 2 or values.size(-1) != HEAD_DIM \
                or values.size(-2) != probs.size(-1) or probs.size(-1) == HEAD_DIM:
            continue
        if not probs.is_floating_point() or float(probs.min()) < 0.0:
            continue
        found.append((probs, c))
    return found


def _query_products(trace, T, S):
    """The first operands of the query-key products of a call on T tokens with S keys (manual attention)."""
    found = []
    for c in trace.calls:
        if c.name in MATMUL and len(c.inputs) == 2 and c.outputs:
            out, q = c.outputs[0], c.inputs[0]
            if out.dim() >= 2 and tuple(out.shape[-2:]) == (T, S) and q.size(-1) == HEAD_DIM:
                found.append(q)
    return found


def attentions(trace, T):
    """[(queries or None, probabilities (..., T, S) in float64)] of every attention of a call on T tokens."""
    found = []
    for c in trace.calls:
        if c.name == "scaled_dot_product_attention":
            q, _, probs = _sdpa_parts(c)
            found.append((q, probs))
    if found:
        return found
    products = _value_products(trace, T)
    queries = _query_products(trace, T, products[0][0].size(-1)) if products else []
    return [(queries[i] if len(queries) == len(products) else None, probs.detach().double())
            for i, (probs, _) in enumerate(products)]


def attention_sites(trace, T):
    """[{"keys": S, "weighted": per query row, the fewest keys given weight, "query": the queries}]
    for every attention of a call on T tokens."""
    out = []
    for q, probs in attentions(trace, T):
        weighted = (probs > WEIGHT).sum(dim=-1).reshape(-1, T)  # (rows, T)
        out.append({"keys": int(probs.size(-1)), "weighted": [int(n) for n in weighted.amin(dim=0)],
                    "weighted_max": [int(n) for n in weighted.amax(dim=0)], "query": q})
    return out


def _decoded_rotation(prefill_trace, decoded_sites):
    """Largest relative distance between a decoded query and position 0's query of the prefill rotated
    to the decoded position (in either pair layout and direction); None when either is not seen."""
    firsts = [q for q, _ in attentions(prefill_trace, PREFILL)]
    queries = [s["query"] for s in decoded_sites]
    if len(firsts) != len(queries) or any(t is None for t in firsts + queries):
        return None
    worst = 0.0
    # the first attention only: its query before the rotation is the token's, whatever else is wrong
    for first, decoded in list(zip(firsts, queries, strict=True))[:1]:
        x0 = _rows(first, PREFILL)[0]  # (rows, hd): position 0's query in every head
        d = decoded.detach().double()
        d_axis = max(i for i, n in enumerate(d.shape) if n == HEAD_DIM)
        d = d.movedim(d_axis, -1).reshape(-1, HEAD_DIM)  # size-1 position axis: any order is the same
        if d.shape != x0.shape:
            return None
        scale = float(x0.abs().max()) or 1.0
        best = min(float((d - _rotate(x0, PREFILL + 1, layout, sign)[PREFILL]).abs().max())
                   for layout in ("interleaved", "half-split") for sign in (1.0, -1.0))
        worst = max(worst, best / scale)
    return worst


def _sites_report(sites, first_position):
    """What the checks read of one call: per attention, the keys given and, per query, the keys weighed
    against those its position allows (position + 1)."""
    return [{"keys": s["keys"], "weighted": s["weighted"], "weighted_max": s["weighted_max"],
             "allowed": [first_position + t + 1 for t in range(len(s["weighted"]))]} for s in sites]


def decode_attention(session):
    """A prefill of PREFILL tokens, one decoded token, then a chunk of CHUNK tokens through one cache:
    each call's attentions (keys given, keys weighed) and the decoded query's rotation."""
    model = build_llama(session, max_seq_len=MAX_SEQ_LEN)
    cache = model.new_cache(1)
    out = {"prefill": PREFILL, "chunk": CHUNK}
    try:
        prefill = traced_forward(model, torch.full((1, PREFILL), TOKEN), cache=cache, start_pos=0)
        decoded = traced_forward(model, torch.full((1, 1), TOKEN), cache=cache, start_pos=PREFILL)
    except Exception as exc:
        return {**out, "exception": describe(exc)}
    decode_sites = attention_sites(decoded, 1)
    out["decode"] = _sites_report(decode_sites, PREFILL)
    out["decode_rotation"] = _decoded_rotation(prefill, decode_sites)
    try:
        chunk = traced_forward(model, torch.full((1, CHUNK), TOKEN), cache=cache, start_pos=PREFILL + 1)
        out["chunk_sites"] = _sites_report(attention_sites(chunk, CHUNK), PREFILL + 1)
    except Exception as exc:  # the decode's numbers stand without the chunk's
        out["chunk_exception"] = describe(exc)
    return out
