"""Submissions written independently of the starter, and catalog bugs written into them by hand.

fixtures/shapes/ holds models in other shapes: heads_loop (one module per head, separate key/query/
value maps, an nn.Sequential of blocks, ReLU), rotary_sdpa (LLaMA-style names, rotary positions and
no position table, separate q/k/v projections, scaled_dot_product_attention, a gated MLP),
alibi_fused (ALiBi biases and no position table, one fused qkv projection laid out head by head,
einsum attention, a tied output layer through F.linear), nanogpt (nanoGPT's model.py, whose
forward returns last-position logits without targets and whose generate takes no generator) and
mingpt (minGPT's model.py: the MLP an nn.ModuleDict of layers that the block calls through a lambda;
MINGPT_SEQUENTIAL rewrites it as an nn.Sequential MLP, the blocks in an nn.Sequential too) and
gptfast_complex (attention the Meta / gpt-fast way: rotary angles as a complex `freqs_cis` buffer, one
head at a time with a hand-written softmax, PyTorch's default initialisation).

CORRECT_SHAPES must pass every test. OTHER_SHAPE_BUGS are named "<bug kind>@<shape>": the bug's
edit written into that shape, with the tests that must catch it.
"""

from __future__ import annotations

from bug_fixtures import d, t
from variants import Variant, m

NANOGPT_LAST_ONLY = ("            logits = self.lm_head(x[:, [-1], :])"
                     " # note: using list [-1] to preserve the time dim\n")
NANOGPT_GENERATE = "    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):\n"
NANOGPT_SAMPLE = "            idx_next = torch.multinomial(probs, num_samples=1)\n"
MINGPT_MLP = """        self.mlp = nn.ModuleDict(dict(
            c_fc=nn.Linear(config.n_embd, 4 * config.n_embd),
            c_proj=nn.Linear(4 * config.n_embd, config.n_embd),
            act=NewGELU(),
            dropout=nn.Dropout(config.dropout),
        ))
        m = self.mlp
        self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x))))  # MLP forward
"""
MINGPT_SEQUENTIAL_MLP = """        self.mlp = nn.Sequential(
            nn.Linear(config.n_embd, 4 * config.n_embd),
            nn.GELU(),
            nn.Linear(4 * config.n_embd, config.n_embd),
            nn.Dropout(config.dropout),
        )
"""
# minGPT with an nn.Sequential MLP and its blocks in an nn.Sequential: that class has n_layer + 1 instances
MINGPT_SEQUENTIAL = [
    m(MINGPT_MLP, MINGPT_SEQUENTIAL_MLP),
    m("self.mlpf(self.ln_2(x))", "self.mlp(self.ln_2(x))"),
    m("h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),",
      "h=nn.Sequential(*[Block(config) for _ in range(config.n_layer)]),"),
    m("        for block in self.transformer.h:\n            x = block(x)\n", "        x = self.transformer.h(x)\n"),
]


CORRECT_SHAPES = [
    Variant("heads-loop", [], shape="heads_loop"),
    Variant("rotary-sdpa", [], shape="rotary_sdpa"),
    Variant("alibi-fused", [], shape="alibi_fused"),
    # nanoGPT with the two changes the interface asks for: logits of every position, a generator
    Variant("nanogpt-on-interface", [
        m(NANOGPT_LAST_ONLY, "            logits = self.lm_head(x)\n"),
        m(NANOGPT_GENERATE, NANOGPT_GENERATE.replace("top_k=None)", "top_k=None, generator=None)")),
        m(NANOGPT_SAMPLE, NANOGPT_SAMPLE.replace("num_samples=1)", "num_samples=1, generator=generator)")),
    ], shape="nanogpt"),
    Variant("mingpt", [], shape="mingpt"),
    Variant("gptfast-complex", [], shape="gptfast_complex"),
    Variant("mingpt-sequential-mlp", MINGPT_SEQUENTIAL, shape="mingpt"),
    # post-LN blocks are another design, not a bug (BUG_CATALOG.md, "Not bugs")
    Variant("post-ln", [m("        x = x + self.sa(self.ln1(x))\n        x = x + self.ffwd(self.ln2(x))\n",
                          "        x = self.ln1(x + self.sa(x))\n        x = self.ln2(x + self.ffwd(x))\n")],
            shape="heads_loop"),
]

HEADS_MASK = '        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))\n'
HEADS_SOFTMAX = "        wei = F.softmax(wei, dim=-1)\n"
HEADS_LOSS = "        loss = F.cross_entropy(logits.view(B * T, C), targets.view(B * T), ignore_index=-1)\n"
ROTARY_LOSS = "            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-1)\n"
WINDOWS = "    return windows[:, :-1].contiguous(), windows[:, 1:].contiguous()\n"
STEP = """    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
"""
ACCUMULATE = """    total = 0.0
    for xs, ys in zip(x.chunk(2), y.chunk(2), strict=True):
        _, part = model(xs, ys)
        part.backward()  # each micro-batch mean counted in full: twice the batch's gradient
        total += part.item() / 2
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    return total
"""


def _bug(kind: str, shape: str, edits: list[tuple[str, str, str]], tests: list[str], **kw: bool) -> Variant:
    return Variant(f"{kind}@{shape}", edits, tests, shape=shape, **kw)


OTHER_SHAPE_BUGS = [
    # A. data and labels
    _bug("label-no-shift", "heads_loop", [d(WINDOWS, WINDOWS.replace("windows[:, 1:]", "windows[:, :-1]"))],
         ["data.targets-next-token"]),
    _bug("label-double-shift", "rotary_sdpa", [m(ROTARY_LOSS, ROTARY_LOSS.replace(
        "logits.flatten(0, 1), targets.flatten()", "logits[:, :-1].flatten(0, 1), targets[:, 1:].flatten()"))],
         ["loss.matches-cross-entropy"]),
    _bug("ignore-index-wrong", "alibi_fused", [m("ignore_index=-1)", "ignore_index=0)")],
         ["loss.ignores-minus-one", "loss.padding-matches-shorter"]),
    _bug("dataset-off-by-one", "rotary_sdpa", [d("data.numel() - block_size,", "data.numel() - block_size - 1,")],
         ["data.windows-cover-data"]),
    # B. positions
    _bug("pos-not-added", "heads_loop", [m("        x = tok_emb + pos_emb\n", "        x = tok_emb\n")],
         ["positional.depends-on-position", "positional.receives-gradient"]),
    _bug("pos-not-added", "rotary_sdpa", [m("        q, k = rotate(q, cos, sin), rotate(k, cos, sin)\n", "")],
         ["positional.depends-on-position"]),
    _bug("pos-not-added", "alibi_fused", [m("bias = alibi_slopes(cfg.n_head)[:, None, None] * distance.clamp(max=0)",
                                            "bias = 0.0 * distance.expand(cfg.n_head, -1, -1)")],
         ["positional.depends-on-position"]),
    _bug("pos-frozen-zero", "heads_loop", [m("        self.apply(self._init_weights)\n",
                                             "        self.apply(self._init_weights)\n"
                                             "        nn.init.zeros_(self.position_embedding_table.weight)\n"
                                             "        self.position_embedding_table.weight.requires_grad_(False)\n")],
         ["positional.receives-gradient", "positional.depends-on-position"]),
    _bug("pos-wrong-slice", "heads_loop", [m("torch.arange(T, device", "torch.arange(1, T + 1, device")],
         ["general.forward-shapes"]),
    _bug("generate-no-crop", "alibi_fused", [m("self(idx[:, -self.cfg.block_size:])", "self(idx)")],
         ["generation.crops-context"]),
    _bug("crop-off-by-one", "heads_loop",
         [m("idx[:, -self.config.block_size:]", "idx[:, -self.config.block_size - 1:]")],
         ["generation.crops-context"]),
    # C. attention
    _bug("mask-missing", "rotary_sdpa", [m("                                             is_causal=True)",
                                           "                                             is_causal=False)")],
         ["attention.causal-perturb", "attention.causal-gradient"]),
    _bug("mask-future-leak", "heads_loop", [m("torch.tril(torch.ones(block_size, block_size))",
                                              "torch.tril(torch.ones(block_size, block_size), diagonal=1)")],
         ["attention.causal-perturb", "attention.rows-zero-on-future"]),
    _bug("mask-flipped", "alibi_fused", [m("dtype=torch.bool).triu(1)", "dtype=torch.bool).tril(-1)")],
         ["attention.causal-perturb"]),
    _bug("mask-finite-fill", "heads_loop", [m(HEADS_MASK, HEADS_MASK.replace('float("-inf")', "-1e4"))],
         ["attention.causal-extreme-scores"]),
    _bug("mask-polarity", "heads_loop", [m("self.tril[:T, :T] == 0", "self.tril[:T, :T] == 1")],
         ["general.finite-outputs", "attention.causal-perturb"]),
    _bug("mask-after-softmax", "heads_loop", [m(HEADS_MASK + HEADS_SOFTMAX,
                                                HEADS_SOFTMAX + HEADS_MASK.replace('float("-inf")', "0.0"))],
         ["attention.rows-zero-on-future"]),
    _bug("softmax-wrong-dim", "alibi_fused", [m("scores.softmax(dim=-1)", "scores.softmax(dim=-2)")],
         ["attention.rows-sum-to-one", "attention.causal-perturb"]),
    _bug("attn-scale-wrong", "heads_loop", [m("k.shape[-1] ** -0.5", "C ** -0.5")], ["attention.score-scale"]),
    _bug("attn-scale-wrong", "rotary_sdpa", [m("                                             is_causal=True)",
                                               "                                             is_causal=True,"
                                               " scale=1.0 / self.n_heads)")],
         ["attention.score-scale"]),
    _bug("attn-scale-wrong", "alibi_fused", [m("/ math.sqrt(self.dim)", "/ math.sqrt(self.heads)")],
         ["attention.score-scale"]),
    # a hand-written softmax, one head at a time: the probabilities are found by their product with the values
    _bug("attn-scale-wrong", "gptfast_complex", [m("/ math.sqrt(self.head_dim)",
                                                   "/ math.sqrt(self.n_head * self.head_dim)")],
         ["attention.score-scale"]),
    _bug("heads-no-transpose", "rotary_sdpa", [m("out.transpose(1, 2).reshape(bsz, seqlen, -1)",
                                                 "out.reshape(bsz, seqlen, -1)")],
         ["attention.causal-perturb"]),
    _bug("batch-mixing", "alibi_fused", [m("        q, k, v = qkv.unbind(dim=3)  # (b, t, nh, d) each\n",
                                           "        q, k, v = qkv.unbind(dim=3)  # (b, t, nh, d) each\n"
                                           "        k = k.roll(1, dims=0)\n")],
         ["attention.no-batch-mixing"]),
    # D. blocks
    _bug("residual-wrong", "rotary_sdpa", [m("        h = x + self.attention(self.attention_norm(x), cos, sin)\n",
                                             "        x = self.attention_norm(x)\n"
                                             "        h = x + self.attention(x, cos, sin)\n")],
         ["general.block-residual-identity"]),
    _bug("residual-wrong", "alibi_fused", [m("x = x + self.drop(self.mixer(", "x = self.drop(self.mixer(")],
         ["general.block-residual-identity"]),
    _bug("layernorm-wrong", "heads_loop", [m("        x = self.ln_f(x)\n", "")], ["general.final-norm"]),
    _bug("layernorm-wrong", "rotary_sdpa", [m("self.output(self.norm(h))", "self.output(h)")],
         ["general.final-norm"]),
    _bug("dropout-at-eval", "alibi_fused", [m("weights = self.drop(scores.softmax(dim=-1))",
                                              "weights = F.dropout(scores.softmax(dim=-1), self.drop.p, True)")],
         ["general.eval-deterministic"]),
    _bug("mlp-no-nonlinearity", "heads_loop", [m("            nn.ReLU(),\n", "")], ["general.mlp-nonlinear"]),
    _bug("mlp-no-nonlinearity", "rotary_sdpa", [m("F.silu(self.w1(x)) * self.w3(x)", "self.w1(x) + self.w3(x)")],
         ["general.mlp-nonlinear"]),
    _bug("mlp-no-nonlinearity", "alibi_fused", [m("nn.GELU(),\n", "\n")], ["general.mlp-nonlinear"]),
    _bug("mlp-no-nonlinearity", "mingpt", [m("m.c_proj(m.act(m.c_fc(x)))", "m.c_proj(m.c_fc(x))")],
         ["general.mlp-nonlinear"]),
    Variant("mlp-no-nonlinearity@mingpt-sequential-mlp",
            [*MINGPT_SEQUENTIAL, m("            nn.GELU(),\n", "")], ["general.mlp-nonlinear"], shape="mingpt"),
    # E. output and loss
    _bug("logits-targets-misaligned", "heads_loop", [m(HEADS_LOSS, HEADS_LOSS.replace(
        "logits.view(B * T, C)", "logits.transpose(0, 1).reshape(B * T, C)"))],
         ["loss.matches-cross-entropy", "loss.rewards-own-target"]),
    _bug("softmax-before-ce", "rotary_sdpa", [m(ROTARY_LOSS, ROTARY_LOSS.replace(
        "logits.flatten(0, 1)", "F.softmax(logits, dim=-1).flatten(0, 1)"))],
         ["loss.matches-cross-entropy"]),
    _bug("loss-reduction-wrong", "alibi_fused", [m("ignore_index=-1)", 'ignore_index=-1, reduction="sum")')],
         ["loss.mean-over-positions", "loss.init-near-ln-v"]),
    # F. training loop (the train.py fixture, driving a model of another shape)
    _bug("zero-grad-missing", "rotary_sdpa", [t("    optimizer.zero_grad(set_to_none=True)\n", "")],
         ["training.gradients-reset"], with_train=True),
    _bug("clip-after-step", "alibi_fused",
         [t(STEP, "    loss.backward()\n    optimizer.step()\n"
                  "    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)\n")],
         ["training.clip-before-step"], with_train=True),
    _bug("grad-accum-not-divided", "heads_loop", [
        t("    _, loss = model(x, y)\n", ""),
        t(STEP + "    return loss.item()\n", ACCUMULATE)],
         ["training.step-gradients"], with_train=True),
    _bug("eval-mode-not-restored", "heads_loop", [t("    model.train(was_training)\n", "")],
         ["training.evaluate-eval-mode"], with_train=True),
    # G. generation
    _bug("sample-wrong-position", "rotary_sdpa", [m("logits = logits[:, -1, :] / temperature",
                                                    "logits = logits[:, 0, :] / temperature")],
         ["generation.samples-last-position"]),
    _bug("sample-wrong-position", "heads_loop", [m("logits = logits[:, -1, :] / temperature",
                                                   "logits = logits[:, idx.size(1) - 1, :] / temperature")],
         ["generation.crops-context"]),
    _bug("temperature-wrong", "alibi_fused", [m("[:, -1] / temperature", "[:, -1] * temperature")],
         ["generation.temperature"]),
    _bug("top-k-broken", "rotary_sdpa", [m('logits.masked_fill(logits < kth, float("-inf"))',
                                           "logits.masked_fill(logits < kth, 0.0)")],
         ["generation.top-k"]),
    _bug("generate-no-eval", "heads_loop", [m("num_samples=1, generator=generator)", "num_samples=1)")],
         ["generation.seeded-reproducible"]),
]
