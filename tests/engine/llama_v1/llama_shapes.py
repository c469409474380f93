"""llama-v1 submissions written independently of the template (fixtures/llama_shapes/) and catalog rows
written into them by hand.

- meta_complex: Meta's model.py on the interface (complex rotary, float32 norm and softmax, additive
  mask, untied embeddings, a preallocated zero cache that remembers where it starts).
- neox_halfsplit: half-split rotary, fused qkv, repeat_interleave, SDPA with an explicit additive mask
  aligned to the bottom right, nn.RMSNorm, a fused gate-up projection, keys cached before the rotation.
- heads_loop: one head at a time with a hand-written softmax, rotary angles computed per call, F.rms_norm,
  a dict cache, untied embeddings.
- gptfast_complex: the Meta / gpt-fast way: rotary angles as a complex `freqs_cis` buffer registered on the
  model, one query head at a time with a hand-written softmax, a preallocated cache that remembers where it
  starts, Meta's sample_top_p, and PyTorch's default initialisation (no init code).
- llama2c: llama2.c's model.py on the interface (freqs_cos/freqs_sin over float pairs, SDPA with is_causal
  for the full forward and its mask buffer through the cache, a float32 RMSNorm, tied embeddings, the loss
  over targets.view(-1), generate under inference_mode).

and one train.py, graded with the template's model.py and data.py:

- train_nanogpt: nanoGPT's get_lr (a (it + 1) / (warmup_iters + 1) warmup from below min_lr; decay_ratio and
  coeff cosine), a micro-step loop summing token losses over the step's target tokens (zero_grad after the
  step), and estimate_loss as evaluate.
"""

from __future__ import annotations

from llama_variants import Variant, m, t

CORRECT_SHAPES = [Variant(name, [], shape=name)
                  for name in ("meta_complex", "neox_halfsplit", "heads_loop", "llama2c", "gptfast_complex")]
CORRECT_TRAIN_SHAPES = [Variant(name, [], train_shape=name) for name in ("train_nanogpt",)]
CACHE_TESTS = ["generation.cache-matches-full-forward", "generation.cache-chunk-after-prefix"]

# Meta's own cache, unadapted: it assumes it holds positions 0 .. start_pos - 1. Decoding agrees with the
# full forward, but an empty cache started elsewhere attends to zero keys: SHIFT fails and CACHE passes.
META_CACHE_FROM_ZERO = Variant("meta-cache-assumes-position-0", [
    m("keys = cache_k[:bsz, cache.start : start_pos + seqlen]", "keys = cache_k[:bsz, : start_pos + seqlen]"),
    m("values = cache_v[:bsz, cache.start : start_pos + seqlen]", "values = cache_v[:bsz, : start_pos + seqlen]"),
    m("cached = 0 if cache is None else start_pos - cache.start", "cached = 0 if cache is None else start_pos"),
], ["positional.shift-invariant"], shape="meta_complex")

OTHER_SHAPE_BUGS = [
    Variant("38-rope-ignores-offset@meta_complex", [m(
        "freqs_cis = self.freqs_cis[start_pos : start_pos + seqlen]", "freqs_cis = self.freqs_cis[:seqlen]")],
            CACHE_TESTS, shape="meta_complex"),
    Variant("39-sdpa-is-causal-in-decode@neox_halfsplit", [m("attn_mask=mask,", "is_causal=True,")],
            CACHE_TESTS, shape="neox_halfsplit"),
    Variant("42-repeat-kv-along-sequence@meta_complex", [m(
        "x[:, :, :, None, :]\n        .expand(bs, slen, n_kv_heads, n_rep, head_dim)",
        "x[:, None, :, :, :]\n        .expand(bs, n_rep, slen, n_kv_heads, head_dim)")],
            ["attention.causal-perturb"], shape="meta_complex"),
    Variant("44-rope-pairs-mixed@neox_halfsplit", [m(
        "emb = torch.cat((freqs, freqs), dim=-1)", "emb = freqs.repeat_interleave(2, dim=-1)")],
            ["positional.rotation-keeps-norm", "positional.rotary-frequencies", "positional.shift-invariant"],
            shape="neox_halfsplit"),
    Variant("46-rmsnorm-subtracts-mean@heads_loop", [m(
        "F.rms_norm(x, (x.size(-1),)", "F.rms_norm(x - x.mean(dim=-1, keepdim=True), (x.size(-1),)")],
            ["general.rmsnorm"], shape="heads_loop"),
    Variant("49-silu-on-product@neox_halfsplit", [m("F.silu(gate) * up", "F.silu(gate * up)")],
            ["general.swiglu-gate"], shape="neox_halfsplit"),
    Variant("50-scale-by-dim@heads_loop", [m("/ self.hd ** 0.5", "/ (self.n_heads * self.hd) ** 0.5")],
            ["attention.score-scale"], shape="heads_loop"),
    Variant("51-top-p-drops-crossing-token@meta_complex", [m(
        "mask = probs_sum - probs_sort > p", "mask = probs_sum > p")], ["generation.top-p"], shape="meta_complex"),
    Variant("40-cache-never-written@heads_loop", [m(
        '            cache["k"][self.index], cache["v"][self.index] = keys, values\n', "")],
            CACHE_TESTS, shape="heads_loop"),
    Variant("43-rope-on-values@heads_loop", [m(
        "values = [v[:, :, g] for g in range(self.n_kv)]",
        "values = [rope(v[:, :, g], start_pos, self.theta) for g in range(self.n_kv)]")],
            ["positional.shift-invariant"], shape="heads_loop"),
    Variant("45-rope-frequency-exponent@heads_loop", [m(
        "-torch.arange(0, hd, 2, dtype=torch.float64) / hd", "-torch.arange(0, hd // 2, dtype=torch.float64) / hd")],
            ["positional.rotary-frequencies"], shape="heads_loop"),
    Variant("47-rmsnorm-no-eps@meta_complex", [m(
        "torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)", "torch.rsqrt(x.pow(2).mean(-1, keepdim=True))")],
            ["general.rmsnorm-eps"], shape="meta_complex"),
    Variant("48-rmsnorm-gain-zero@meta_complex", [m(
        "self.weight = nn.Parameter(torch.ones(dim))", "self.weight = nn.Parameter(torch.zeros(dim))")],
            ["general.rmsnorm"], shape="meta_complex"),
    # keys and values repeated for the query heads before they are cached: the cache holds n_local_heads
    Variant("41-cache-after-repeat-kv@llama2c", [
        m("""        # grouped multiquery attention: expand out keys and values
        xk = repeat_kv(xk, self.n_rep)  # (bs, cached + seqlen, n_local_heads, head_dim)
        xv = repeat_kv(xv, self.n_rep)  # (bs, cached + seqlen, n_local_heads, head_dim)

""", ""),
        m("""        # the cache: this call's keys and values after the cached ones
""", """        # grouped multiquery attention: expand out keys and values
        xk = repeat_kv(xk, self.n_rep)  # (bs, seqlen, n_local_heads, head_dim)
        xv = repeat_kv(xv, self.n_rep)  # (bs, seqlen, n_local_heads, head_dim)

        # the cache: this call's keys and values after the cached ones
""")], ["generation.cache-kv-heads"], shape="llama2c"),
    # Meta's preallocated cache sized for n_heads, written with keys and values already repeated
    Variant("41-cache-after-repeat-kv@meta_complex", [
        m("shape = (batch_size, args.max_seq_len, args.n_kv_heads, head_dim)",
          "shape = (batch_size, args.max_seq_len, args.n_heads, head_dim)"),
        m("""        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)
""", """        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)
        xk, xv = repeat_kv(xk, self.n_rep), repeat_kv(xv, self.n_rep)  # (bs, seqlen, n_local_heads, head_dim)
"""),
        m("""        keys = repeat_kv(keys, self.n_rep)  # (bs, cache_len + seqlen, n_local_heads, head_dim)
        values = repeat_kv(values, self.n_rep)
""", "")], ["generation.cache-kv-heads"], shape="meta_complex"),
    # nanoGPT's accumulation: each micro-batch's mean loss divided by the number of micro-batches
    Variant("52-accumulation-mean-of-means@train_nanogpt", [
        t("""ignore_index=-1, reduction="sum")
        loss = loss / tokens_per_step""", """ignore_index=-1)
        loss = loss / len(micro_batches)""")], ["training.accumulation-token-mean"], train_shape="train_nanogpt"),
    # one step too many in the decay: decay_ratio never reaches 1, so lr at max_steps is above min_lr
    Variant("53-cosine-never-reaches-min-lr@train_nanogpt", [
        t("/ (lr_decay_iters - warmup_iters)", "/ (lr_decay_iters - warmup_iters + 1)")],
            ["training.lr-schedule"], train_shape="train_nanogpt"),
    # the warmup's + 1 dropped: step 0 gets a learning rate of 0 and learns nothing
    Variant("53-warmup-zero-at-step-0@train_nanogpt", [
        t("learning_rate * (it + 1) / (warmup_iters + 1)", "learning_rate * it / warmup_iters")],
            ["training.lr-schedule"], train_shape="train_nanogpt"),
]

# llama2.c as published calls its blocks' submodules through .forward, which runs no module hooks (the
# traced MLP checks then find no MLP), and keeps its loss in self.last_loss, so a model that has computed
# a loss cannot be deep-copied (the train_step probes copy it). The fixture calls the modules and returns
# the loss; these edits put llama2.c's lines back.
LLAMA2C_AS_PUBLISHED = Variant("llama2c-as-published", [
    m("h = x + self.attention(self.attention_norm(x)", "h = x + self.attention.forward(self.attention_norm(x)"),
    m("out = h + self.feed_forward(self.ffn_norm(h))", "out = h + self.feed_forward.forward(self.ffn_norm(h))"),
    m("            loss = F.cross_entropy(", "            loss = self.last_loss = F.cross_entropy("),
], ["general.mlp-nonlinear", "general.swiglu-gate", "training.step-gradients", "training.gradients-reset"],
    shape="llama2c")
