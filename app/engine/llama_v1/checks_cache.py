"""Checks on the incremental path: cached logits against the full forward's (CACHE), the same tokens
at another start position (SHIFT), and what the cache stores."""

from __future__ import annotations

from app.engine.gpt_v1.verdicts import Fail, NotApplicable, num, probe
from app.engine.measurements import Measurements

ATOL = 1e-6  # float64 logits: one path or the other, the same arithmetic up to rounding


def _plan(c: Measurements, name: str, what: str) -> str:
    case = probe(c, "cache_agreement")["cases"][name]
    if "exception" in case:
        raise Fail(f"feeding the tokens through the cache ({what}) raised {case['exception']}")
    diffs = [num(v) for v in case["diffs"]]
    bad = [t for t, v in enumerate(diffs) if not v <= ATOL]
    if bad:
        worst = max(diffs[t] for t in bad)
        raise Fail(f"feeding the tokens through the cache ({what}) gives logits that differ from the full "
                   f"forward's at positions {bad} (by up to {worst:.3g}); positions {list(range(bad[0]))} agree")
    return f"logits through the cache ({what}) equal the full forward's at every position"


def cache_matches_full(c: Measurements, r: Measurements) -> str:
    return _plan(c, "prefill-then-steps", "a prefill of 4 tokens, then one token at a time")


def cache_chunk(c: Measurements, r: Measurements) -> str:
    return _plan(c, "chunk-after-prefix", "a prefix of 5 tokens, a chunk of 3, then one token at a time")


def shift_invariant(c: Measurements, r: Measurements) -> str:
    d = probe(c, "shift_invariance")
    scale = num(d["scale"])
    for start, diff in d["shifted"].items():
        if not num(diff) <= ATOL * (1.0 + scale):
            raise Fail(f"the same tokens prefilled into an empty cache at start_pos={start} give logits that differ "
                       f"from those at positions 0..T-1 (by up to {num(diff):.3g}): the output depends on where "
                       "the sequence starts, although rotary positions make attention depend on relative "
                       "positions only")
    return "the same tokens at another start position give the same logits"


def cache_kv_heads(c: Measurements, r: Measurements) -> str:
    d = probe(c, "cache_heads")
    shapes = d["shapes"]
    if not shapes:
        raise NotApplicable("no tensor of the cache (or of the model's buffers) holds keys or values")
    n_heads, n_kv, hd = d["n_heads"], d["n_kv_heads"], d["head_dim"]
    repeated = [s for s in shapes if n_heads in s or s[-1] == n_heads * hd]
    if repeated:
        raise Fail(f"after a prefill the cache holds tensors of shape {tuple(repeated[0])}, with an axis of "
                   f"n_heads = {n_heads}: keys or values are stored once per query head, not once per "
                   f"key/value head (n_kv_heads = {n_kv})")
    return "the cache stores one key and value per key/value head"
