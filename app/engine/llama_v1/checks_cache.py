"""Checks on the incremental path: cached logits against the full forward's (CACHE), the same tokens
at another start position (SHIFT), and what the cache stores."""

from __future__ import annotations

from app.engine.measurements import Measurements, ProbeReadings
from app.engine.shared.verdicts import Fail, NotApplicable, num, probe

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


def _decode(c: Measurements) -> ProbeReadings:
    d = probe(c, "decode_attention")
    if "exception" in d:
        raise Fail(f"a prefill then one decoded token through the cache raised {d['exception']}")
    if not d["decode"]:
        raise NotApplicable("no attention was observed in a call through the cache")
    return d


def decode_own_key(c: Measurements, r: Measurements) -> str:
    d = _decode(c)
    p = int(d["prefill"])
    for site in d["decode"]:
        if int(site["keys"]) < p + 1:
            raise Fail(f"a token decoded after a prefill of {p} tokens is scored against {site['keys']} keys, "
                       f"not the {p + 1} of every cached position and its own: the cache gives attention the "
                       "keys it held before this call, without the one it appends")
    return "a decoded token is scored against every cached key and its own"


def decode_weighs_every_key(c: Measurements, r: Measurements) -> str:
    d = _decode(c)
    p = int(d["prefill"])
    for site in d["decode"]:
        need = min(int(site["keys"]), p + 1)
        if int(site["weighted"][0]) != need or int(site["weighted_max"][0]) != need:
            raise Fail(f"a token decoded at position {p} gives weight to {site['weighted'][0]} of the "
                       f"{site['keys']} keys it is given, where it may see {need} (every cached position and "
                       "its own): the mask of a call through the cache is not aligned to its last positions")
    return "a decoded token weighs every cached position and its own"


def chunk_mask(c: Measurements, r: Measurements) -> str:
    d = _decode(c)
    if "chunk_exception" in d:
        raise Fail(f"a chunk of {d['chunk']} tokens after a prefill and a decoded token raised {d['chunk_exception']}")
    first = int(d["prefill"]) + 1
    for site in d["chunk_sites"]:
        need = [min(int(site["keys"]), int(a)) for a in site["allowed"]]
        got = [int(n) for n in site["weighted"]]
        if got != need or [int(n) for n in site["weighted_max"]] != need:
            raise Fail(f"in a chunk of {len(need)} tokens after {first} cached positions, the queries give weight "
                       f"to {got} keys, where positions {first}..{first + len(need) - 1} may see {need} (every "
                       "cached key and the chunk's up to their own): the causal mask is not aligned to the "
                       "chunk's positions")
    return "a chunk after cached tokens sees every cached key and its own keys up to each position"


def rotary_in_decode(c: Measurements, r: Measurements) -> str:
    d = _decode(c)
    diff = d.get("decode_rotation")
    if diff is None:
        raise NotApplicable("the queries of the decoded token and of the prefill were not both observed")
    if not num(diff) <= 1e-4:
        raise Fail(f"on one repeated token, the query of the token decoded at position {d['prefill']} is not "
                   "position 0's query rotated by that position (relative difference "
                   f"{num(diff):.3g}): a call through the cache does not rotate by its absolute positions "
                   "start_pos .. start_pos + T - 1")
    return "a decoded token's query is rotated by its absolute position"
