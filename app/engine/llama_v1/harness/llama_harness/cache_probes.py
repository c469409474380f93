"""The incremental path: new_cache and forward(tokens, cache=, start_pos=).

CACHE: the same tokens fed through a cache in pieces (a prefill, then one token at a time; or a prefix,
a 3-token chunk, then one at a time) must give, at every position, the full forward's logits.
SHIFT: the same tokens prefilled into an empty cache at start_pos = s must give the logits they have at
0 .. T-1: rotary positions on q and k make scores depend on relative positions alone.
"""

import torch
from dojo_harness.errors import describe
from dojo_harness.loading import tokens

from .loading import build_llama, call

B, T, N_HEADS, N_KV_HEADS, HEAD_DIM = 3, 12, 4, 2, 12
# (name, sizes of the pieces fed one after another; they add up to T)
PLANS = (("prefill-then-steps", [4] + [1] * 8), ("chunk-after-prefix", [5, 3] + [1] * 4))


def _max_abs(a, b):
    return float((a - b).abs().max()) if a.numel() else 0.0


def _per_position(logits, full):
    """max |difference| at each position, over the batch and the vocabulary."""
    return [round(float(v), 12) for v in (logits - full).abs().amax(dim=(0, 2))]


def _through_cache(model, idx, pieces):
    cache = model.new_cache(idx.size(0))
    outs, pos = [], 0
    for size in pieces:
        logits, _ = call(model, idx[:, pos:pos + size], cache=cache, start_pos=pos)
        outs.append(logits)
        pos += size
    return torch.cat(outs, dim=1)


def cache_agreement(mods):
    """Per position, the largest gap between the logits through the cache and the full forward's."""
    model = build_llama(mods["model"])
    idx = tokens((B, T), seed=100)
    with torch.no_grad():
        full, _ = call(model, idx)
        cases = {}
        for name, pieces in PLANS:
            try:
                cases[name] = {"pieces": pieces, "diffs": _per_position(_through_cache(model, idx, pieces), full)}
            except Exception as exc:  # one plan's crash does not hide the other's numbers
                cases[name] = {"pieces": pieces, "exception": describe(exc, mods.get("_dir"))}
    return {"cases": cases, "scale": float(full.abs().max())}


def shift_invariance(mods, starts=(5, 17)):
    """The logits of tokens prefilled into an empty cache at start_pos s against those at 0 .. T-1.
    max_seq_len leaves room for s + T (a cache may be preallocated to it)."""
    model = build_llama(mods["model"], max_seq_len=32)
    idx = tokens((B, T), seed=101)
    with torch.no_grad():
        base, _ = call(model, idx)
        at_zero, _ = call(model, idx, cache=model.new_cache(B), start_pos=0)
        shifted = {}
        for s in starts:
            logits, _ = call(model, idx, cache=model.new_cache(B), start_pos=s)
            shifted[str(s)] = _max_abs(logits, base)
    return {"zero_diff": _max_abs(at_zero, base), "shifted": shifted, "scale": float(base.abs().max())}


def _tensors(obj, found, seen, depth=0):
    """Every tensor reachable from obj through containers and object attributes."""
    if depth > 6 or id(obj) in seen or len(found) > 200:
        return
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        found.append(obj)
    elif isinstance(obj, torch.nn.Module):
        found.extend(obj.buffers())
    elif isinstance(obj, dict):
        for value in obj.values():
            _tensors(value, found, seen, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            _tensors(value, found, seen, depth + 1)
    elif hasattr(obj, "__dict__") or hasattr(obj, "__slots__"):
        values = list(vars(obj).values()) if hasattr(obj, "__dict__") else []
        values += [getattr(obj, name, None) for name in getattr(obj, "__slots__", ())]
        for value in values:
            _tensors(value, found, seen, depth + 1)


def cache_heads(mods, prefill=7, max_seq_len=20):
    """Shapes of the floating-point tensors a cache holds after a prefill (sizes chosen so that
    B=3, n_kv_heads=2, n_heads=4, prefill=7, max_seq_len=20 and head_dim=12 are all distinct; three layers,
    so that a tensor stacking every layer's keys and values has no axis of n_heads either)."""
    model = build_llama(mods["model"], max_seq_len=max_seq_len, n_layers=3)
    cache = model.new_cache(B)
    with torch.no_grad():
        call(model, tokens((B, prefill), seed=102), cache=cache, start_pos=0)
    found: list[torch.Tensor] = []
    _tensors(cache, found, set())
    where = "cache"
    if not any(t.is_floating_point() for t in found):  # a cache kept inside the model's modules
        found, where = [b for b in model.buffers() if b.dim() >= 3], "model buffers"
    shapes = [list(t.shape) for t in found if t.is_floating_point() and t.dim() >= 3]
    return {"shapes": shapes[:16], "where": where, "n_heads": N_HEADS, "n_kv_heads": N_KV_HEADS,
            "head_dim": HEAD_DIM, "batch": B, "prefill": prefill, "max_seq_len": max_seq_len,
            "n_layers": 3}
