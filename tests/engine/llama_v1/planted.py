"""BUG_CATALOG.md rows 38-53 planted by hand into the llama-v1 template, each with the tests that must
catch it (the probe the catalog names, seen through its check)."""

from __future__ import annotations

from llama_variants import Variant, m, t

ROPE_SLICE = "        rot = self.rope[start_pos : start_pos + T]\n"
CACHE_WRITE = "        self.keys[layer], self.values[layer] = k, v\n"
CACHE_UPDATE = ("            k, v = cache.update(self.layer_id, k, v)  # (B, n_kv, S, hd): cached positions, "
                "then these\n")
CACHE_IF = "        if cache is not None:\n" + CACHE_UPDATE
GQA = "        # grouped queries: each key/value head serves n_heads // n_kv_heads consecutive query heads\n"
V_LINE = "        v = self.wv(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)"
ROPE_BODY = """    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))  # (B, T, nh, hd/2)
    return torch.view_as_real(pairs * rot.to(pairs.dtype)[:, None, :]).flatten(-2)  # (B, T, nh, hd)
"""
RMS = "        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight\n"
SWIGLU = "        return self.dropout(self.w2(F.silu(self.w1(x)) * self.w3(x)))\n"
SDPA_MASK = "attn_mask=mask, enable_gqa=True,\n"
CACHE_TESTS = ["generation.cache-matches-full-forward", "generation.cache-chunk-after-prefix"]

# one key/value head per query head before the cache: it then holds n_heads of them
REPEAT_BEFORE_CACHE = """        k = k.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)
        v = v.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)
"""
# every key/value head copied for its query heads, but the copy axis put after the sequence axis
REPEAT_ALONG_TIME = """        n_rep = self.n_heads // self.n_kv_heads
        k = k[:, :, :, None, :].expand(B, self.n_kv_heads, S, n_rep, self.head_dim).reshape(B, self.n_heads, S, -1)
        v = v[:, :, :, None, :].expand(B, self.n_kv_heads, S, n_rep, self.head_dim).reshape(B, self.n_heads, S, -1)
"""

# half-split rotate_half with the angles laid out pair by pair (interleaved): not a rotation
MIXED_PAIRS = """    cos = rot.real.repeat_interleave(2, dim=-1)[:, None, :].to(x.dtype)
    sin = rot.imag.repeat_interleave(2, dim=-1)[:, None, :].to(x.dtype)
    half = x.size(-1) // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin
"""

PLANTED = [
    Variant("38-rope-ignores-offset", [m(ROPE_SLICE, ROPE_SLICE.replace("[start_pos : start_pos + T]", "[:T]"))],
            [*CACHE_TESTS, "positional.rotary-in-decode"]),
    Variant("39-sdpa-is-causal-in-decode", [m(SDPA_MASK, "is_causal=True, enable_gqa=True,\n")],
            [*CACHE_TESTS, "generation.decode-weighs-every-key", "generation.chunk-mask"]),
    Variant("40-cache-never-written", [m(CACHE_WRITE, "")], CACHE_TESTS),
    Variant("40-cache-returns-before-append", [m("""        if self.keys[layer] is not None:
            k = torch.cat((self.keys[layer], k), dim=2)
            v = torch.cat((self.values[layer], v), dim=2)
        self.keys[layer], self.values[layer] = k, v
        return k, v
""", """        if self.keys[layer] is None:
            self.keys[layer], self.values[layer] = k, v
            return k, v
        cached_k, cached_v = self.keys[layer], self.values[layer]
        self.keys[layer] = torch.cat((cached_k, k), dim=2)
        self.values[layer] = torch.cat((cached_v, v), dim=2)
        return cached_k, cached_v
""")], [*CACHE_TESTS, "generation.decode-own-key"]),
    Variant("39-sdpa-is-causal-for-chunks", [m(SDPA_MASK, "is_causal=T > 1, enable_gqa=True,\n")],
            ["generation.cache-chunk-after-prefix", "generation.chunk-mask"]),
    Variant("41-cache-after-repeat-kv", [m(CACHE_IF, REPEAT_BEFORE_CACHE + CACHE_IF)], ["generation.cache-kv-heads"]),
    Variant("42-repeat-kv-along-sequence", [m(GQA, REPEAT_ALONG_TIME)], ["attention.causal-perturb", *CACHE_TESTS]),
    Variant("43-rope-on-values", [m(V_LINE, "        v = apply_rope(self.wv(x).view(B, T, self.n_kv_heads, "
                                           "self.head_dim), rot).transpose(1, 2)")],
            ["positional.shift-invariant", "positional.values-carry-no-position"]),
    Variant("44-rope-pairs-mixed", [m(ROPE_BODY, MIXED_PAIRS)],
            ["positional.rotation-keeps-norm", "positional.rotary-frequencies", "positional.shift-invariant"]),
    Variant("45-rope-frequency-exponent", [m("torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim",
                                             "torch.arange(0, head_dim // 2, dtype=torch.float64) / head_dim")],
            ["positional.rotary-frequencies", "positional.rotary-frequency-set"]),
    Variant("46-rmsnorm-subtracts-mean", [m(RMS, "        x = x - x.mean(dim=-1, keepdim=True)\n" + RMS)],
            ["general.rmsnorm"]),
    Variant("46-rmsnorm-over-time", [m(RMS, RMS.replace("mean(dim=-1", "mean(dim=1"))],
            ["attention.causal-perturb", "general.rmsnorm"]),
    Variant("47-rmsnorm-eps-outside-sqrt", [m(RMS, "        return x / (x.pow(2).mean(dim=-1, keepdim=True).sqrt()"
                                                   " + self.eps) * self.weight\n")], ["general.rmsnorm-eps"]),
    Variant("47-rmsnorm-no-eps", [m(RMS, RMS.replace(" + self.eps", ""))], ["general.rmsnorm-eps"]),
    Variant("48-rmsnorm-gain-zero", [m("nn.Parameter(torch.ones(dim))", "nn.Parameter(torch.zeros(dim))")],
            ["general.rmsnorm"]),
    Variant("48-rmsnorm-gain-unused", [m(RMS, RMS.replace(" * self.weight", ""))],
            ["general.parameters-receive-gradient"]),
    Variant("49-swiglu-gate-dropped", [m(SWIGLU, SWIGLU.replace(" * self.w3(x)", ""))],
            ["general.parameters-receive-gradient"]),
    Variant("49-silu-on-product", [m(SWIGLU, SWIGLU.replace("F.silu(self.w1(x)) * self.w3(x)",
                                                            "F.silu(self.w1(x) * self.w3(x))"))],
            ["general.swiglu-gate"]),
    Variant("50-scale-by-dim", [m(SDPA_MASK, "attn_mask=mask, enable_gqa=True, scale=C ** -0.5,\n")],
            ["attention.score-scale"]),
    Variant("51-top-p-drops-crossing-token", [m("sorted_probs.cumsum(dim=-1) - sorted_probs >= top_p",
                                                "sorted_probs.cumsum(dim=-1) >= top_p")], ["generation.top-p"]),
    Variant("52-accumulation-mean-of-means", [t("share = int((y != -1).sum()) / n_tokens",
                                                "share = 1 / len(micro_batches)")],
            ["training.accumulation-token-mean"]),
    Variant("53-cosine-never-reaches-min", [t("(max_steps - warmup_steps)  #", "(max_steps - warmup_steps + 1)  #")],
            ["training.lr-schedule"]),
    Variant("53-warmup-zero-at-step-0", [t("""    if step < warmup_steps:
        return max_lr * (step + 1) / warmup_steps""", """    if step <= warmup_steps:
        return max_lr * step / warmup_steps""")], ["training.lr-schedule"]),
]
