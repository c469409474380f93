"""The incremental path: new_cache and forward(tokens, cache=, start_pos=).

CACHE: the same tokens fed through a cache in pieces (a prefill, then one token at a time; or a prefix,
a 3-token chunk, then one at a time) must give, at every position, the full forward's logits.
SHIFT: the same tokens prefilled into an empty cache at start_pos = s must give the logits they have at
0 .. T-1: rotary positions on q and k make scores depend on relative positions alone.

Judge side: the agent returns the raw logits of each call; every difference is computed here.
"""

import torch
from dojo_kit.remote import ObservationError
from lm_probes.errors import describe
from lm_probes.loading import tokens

from .loading import build_llama

B, T, N_HEADS, N_KV_HEADS, HEAD_DIM = 3, 12, 4, 2, 12
# (name, sizes of the pieces fed one after another; they add up to T)
PLANS = (("prefill-then-steps", [4] + [1] * 8), ("chunk-after-prefix", [5, 3] + [1] * 4))
_FLOATING = ("float64", "float32", "float16", "bfloat16")


def _max_abs(a, b):
    return float((a - b).abs().max()) if a.numel() else 0.0


def _per_position(logits, full):
    """max |difference| at each position, over the batch and the vocabulary."""
    return [round(float(v), 12) for v in (logits - full).abs().amax(dim=(0, 2))]


def through_cache(model, idx, pieces):
    """The logits of idx fed through a new cache in pieces of these sizes, concatenated."""
    cache = model.new_cache(idx.size(0))
    outs, pos = [], 0
    for size in pieces:
        logits, _ = model.forward(idx[:, pos:pos + size], cache=cache, start_pos=pos)
        outs.append(logits)
        pos += size
    return torch.cat(outs, dim=1)


def cache_agreement(session):
    """Per position, the largest gap between the logits through the cache and the full forward's."""
    model = build_llama(session)
    idx = tokens((B, T), seed=100)
    full, _ = model(idx)
    cases = {}
    for name, pieces in PLANS:
        try:
            cases[name] = {"pieces": pieces, "diffs": _per_position(through_cache(model, idx, pieces), full)}
        except Exception as exc:  # one plan's crash does not hide the other's numbers
            cases[name] = {"pieces": pieces, "exception": describe(exc)}
    return {"cases": cases, "scale": float(full.abs().max())}


def shift_invariance(session, starts=(5, 17)):
    """The logits of tokens prefilled into an empty cache at start_pos s against those at 0 .. T-1.
    max_seq_len leaves room for s + T (a cache may be preallocated to it)."""
    model = build_llama(session, max_seq_len=32)
    idx = tokens((B, T), seed=101)
    base, _ = model(idx)
    at_zero, _ = model.forward(idx, cache=model.new_cache(B), start_pos=0)
    shifted = {}
    for s in starts:
        logits, _ = model.forward(idx, cache=model.new_cache(B), start_pos=s)
        shifted[str(s)] = _max_abs(logits, base)
    return {"zero_diff": _max_abs(at_zero, base), "shifted": shifted, "scale": float(base.abs().max())}


def _shapes(entries, what):
    """[(dtype name, shape)] from the agent's list of [dtype, shape]."""
    if not isinstance(entries, list):
        raise ObservationError(f"the {what} tensors did not come back")
    out = []
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and isinstance(entry[1], list) and all(isinstance(n, int) for n in entry[1])):
            raise ObservationError(f"the {what} tensors are not (dtype, shape) pairs")
        out.append((entry[0], list(entry[1])))
    return out


def cache_heads(session, prefill=7, max_seq_len=20):
    """Shapes of the floating-point tensors a cache holds after a prefill (sizes chosen so that
    B=3, n_kv_heads=2, n_heads=4, prefill=7, max_seq_len=20 and head_dim=12 are all distinct; three layers,
    so that a tensor stacking every layer's keys and values has no axis of n_heads either). The agent
    lists every tensor reachable from the cache object (and the model's buffers); the judge picks."""
    model = build_llama(session, max_seq_len=max_seq_len, n_layers=3)
    cache = model.new_cache(B)
    model.forward(tokens((B, prefill), seed=102), cache=cache, start_pos=0)
    model.sync()
    held = session.call("llama_cache_tensors", handle=model.handle, cache=cache)
    found, where = _shapes(held.get("cache"), "cache's"), "cache"
    if not any(dtype in _FLOATING for dtype, _ in found):  # a cache kept inside the model's modules
        found = [(d, s) for d, s in _shapes(held.get("buffers"), "model's") if len(s) >= 3]
        where = "model buffers"
    shapes = [s for dtype, s in found if dtype in _FLOATING and len(s) >= 3]
    return {"shapes": shapes[:16], "where": where, "n_heads": N_HEADS, "n_kv_heads": N_KV_HEADS,
            "head_dim": HEAD_DIM, "batch": B, "prefill": prefill, "max_seq_len": max_seq_len,
            "n_layers": 3}


def cache_curve(model, window, prefill=4):
    """For display: per position of a text window, max |logits through the cache - full forward's|
    (prefill, then one token at a time) on the trained model."""
    model.eval()
    idx = window.view(1, -1)
    full, _ = model(idx)
    pieces = [prefill] + [1] * (idx.size(1) - prefill)
    diffs = (through_cache(model, idx, pieces) - full).abs().amax(dim=-1)[0]
    return {"prefill": prefill, "diffs": [float(v) for v in diffs]}
