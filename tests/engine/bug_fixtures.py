"""One planted catalog bug per fixture (exact edits on the leaky-mask solution) and the tests that
must catch it. Rows refer to BUG_CATALOG.md."""

from __future__ import annotations

from variants import ATTN_CORE, MASK_LINE, Variant, m

LOSS = "            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)\n"
CLIP = "    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)\n"
CROP = "idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]"


def d(old: str, new: str) -> tuple[str, str, str]:
    return ("data.py", old, new)


def t(old: str, new: str) -> tuple[str, str, str]:
    return ("train.py", old, new)


Y_LINE = "    y = torch.stack([data[i + 1 : i + 1 + block_size] for i in ix])  # (B, T)"

BUG_FIXTURES = [
    # A. data and labels
    Variant("label-no-shift", [d(Y_LINE, "    y = torch.stack([data[i : i + block_size] for i in ix])")],
            ["data.targets-next-token"]),
    Variant("label-two-ahead", [d(Y_LINE, "    y = torch.stack([data[i + 2 : i + 2 + block_size] for i in ix])")],
            ["data.targets-next-token"]),
    Variant("loss-double-shift", [m(LOSS, "            loss = F.cross_entropy(logits[:, :-1].reshape(-1, "
                                          "logits.size(-1)), targets[:, 1:].reshape(-1), ignore_index=-1)\n")],
            ["loss.matches-cross-entropy"]),
    Variant("ignore-index-wrong", [m("ignore_index=-1)", "ignore_index=0)")],
            ["loss.ignores-minus-one", "loss.matches-cross-entropy", "loss.padding-matches-shorter"]),
    Variant("get-batch-wrong-size", [d("(batch_size,), generator", "(block_size,), generator")],
            ["data.get-batch-shapes"]),
    Variant("dataset-off-by-one", [d("len(data) - block_size,", "len(data) - block_size - 1,")],
            ["data.windows-cover-data"]),
    # B. embeddings
    Variant("pos-not-added", [m("drop(tok_emb + pos_emb)", "drop(tok_emb)")],
            ["positional.receives-gradient", "positional.depends-on-position"]),
    Variant("pos-wrong-slice", [m("torch.arange(0, T,", "torch.arange(1, T + 1,")], ["general.forward-shapes"]),
    Variant("pos-frozen-zero", [m("        self.apply(self._init_weights)\n",
                                  "        self.apply(self._init_weights)\n"
                                  "        torch.nn.init.zeros_(self.transformer.wpe.weight)\n"
                                  "        self.transformer.wpe.weight.requires_grad = False\n")],
            ["positional.receives-gradient", "positional.depends-on-position"]),
    Variant("generate-no-crop", [m(CROP, "idx")], ["generation.crops-context"]),
    # C. attention
    Variant("mask-missing", [m(MASK_LINE, "")],
            ["attention.causal-perturb", "attention.causal-gradient", "equivalence.logits"]),
    Variant("mask-flipped", [m("mask = torch.tril(", "mask = torch.triu(")], ["attention.causal-perturb"]),
    Variant("mask-finite-fill", [m('== 0, float("-inf"))', "== 0, -1e4)")], ["attention.causal-extreme-scores"]),
    Variant("mask-polarity", [m("self.bias[:, :, :T, :T] == 0", "self.bias[:, :, :T, :T] == 1")],
            ["general.finite-outputs", "attention.causal-perturb"]),
    Variant("mask-after-softmax", [m(MASK_LINE + "        att = F.softmax(att, dim=-1)\n",
                                     "        att = F.softmax(att, dim=-1)\n"
                                     "        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, 0.0)\n")],
            ["equivalence.logits", "attention.rows-zero-on-future"]),
    Variant("softmax-wrong-dim", [m("att = F.softmax(att, dim=-1)", "att = F.softmax(att, dim=-2)")],
            ["attention.causal-perturb", "attention.rows-sum-to-one"]),
    Variant("scale-missing", [m(" * (1.0 / math.sqrt(k.size(-1)))", "")],
            ["equivalence.last-position", "attention.score-scale"]),
    Variant("scale-by-width", [m("math.sqrt(k.size(-1))", "math.sqrt(C)")], ["attention.score-scale"]),
    Variant("heads-no-transpose", [m("y = y.transpose(1, 2).contiguous().view(B, T, C)",
                                     "y = y.contiguous().view(B, T, C)")],
            ["attention.causal-perturb"]),
    Variant("batch-mixing", [m(ATTN_CORE, "        k = k.roll(1, dims=0)\n" + ATTN_CORE)],
            ["attention.no-batch-mixing"]),
    # D. blocks
    Variant("residual-missing", [m("x = x + self.attn(self.ln_1(x))", "x = self.attn(self.ln_1(x))")],
            ["equivalence.logits", "equivalence.last-position", "general.block-residual-identity"]),
    Variant("residual-from-normalised", [m("x = x + self.attn(self.ln_1(x))",
                                           "h = self.ln_1(x)\n        x = h + self.attn(h)")],
            ["general.block-residual-identity"]),
    Variant("ln-f-missing", [m("        x = self.transformer.ln_f(x)\n", "")],
            ["equivalence.logits", "equivalence.last-position", "general.final-norm"]),
    Variant("dropout-at-eval", [m("att = self.attn_dropout(att)",
                                  "att = F.dropout(att, p=self.attn_dropout.p, training=True)")],
            ["general.eval-deterministic"]),
    Variant("mlp-linear", [m("self.c_proj(self.gelu(self.c_fc(x)))", "self.c_proj(self.c_fc(x))")],
            ["equivalence.logits", "equivalence.last-position", "general.mlp-nonlinear"]),
    # E. output and loss
    Variant("logits-targets-misaligned", [m("logits.view(-1, logits.size(-1))",
                                            "logits.transpose(0, 1).reshape(-1, logits.size(-1))")],
            ["loss.matches-cross-entropy", "loss.rewards-own-target"]),
    Variant("softmax-before-ce", [m("F.cross_entropy(logits.view(",
                                    "F.cross_entropy(F.softmax(logits, dim=-1).view(")],
            ["loss.matches-cross-entropy"]),
    Variant("loss-sum", [m("ignore_index=-1)", 'ignore_index=-1, reduction="sum")')],
            ["loss.matches-cross-entropy", "loss.init-near-ln-v", "loss.mean-over-positions"]),
    Variant("loss-sum-per-sequence", [m("ignore_index=-1)", 'ignore_index=-1, reduction="sum") / B')],
            ["loss.mean-over-positions"]),
    # F. training loop (train.py)
    Variant("zero-grad-missing", [t("    optimizer.zero_grad(set_to_none=True)\n", "")],
            ["training.gradients-reset"], with_train=True),
    Variant("backward-wrong-tensor", [t("    loss.backward()\n", "    (loss * 0.5).backward()\n")],
            ["training.step-gradients"], with_train=True),
    Variant("clip-after-step", [t(CLIP + "    optimizer.step()\n", "    optimizer.step()\n" + CLIP)],
            ["training.clip-before-step"], with_train=True),
    Variant("train-mode-not-restored", [t("    model.train(was_training)\n", "")],
            ["training.evaluate-eval-mode"], with_train=True),
    Variant("eval-not-called", [t("    model.eval()\n", "")], ["training.evaluate-eval-mode"], with_train=True),
    Variant("evaluate-sum", [t("sum(losses) / len(losses)", "sum(losses)")], ["training.evaluate-mean"],
            with_train=True),
    # G. generation
    Variant("sample-wrong-position", [m("logits = logits[:, -1, :] / temperature",
                                        "logits = logits[:, 0, :] / temperature")],
            ["generation.samples-last-position", "generation.greedy"]),
    Variant("temperature-multiplied", [m("logits[:, -1, :] / temperature", "logits[:, -1, :] * temperature")],
            ["generation.temperature"]),
    Variant("top-k-fill-zero", [m('logits[logits < v[:, [-1]]] = -float("inf")',
                                  "logits[logits < v[:, [-1]]] = 0.0")],
            ["generation.top-k", "generation.greedy"]),
    Variant("generator-ignored", [m("num_samples=1, generator=generator)", "num_samples=1)")],
            ["generation.seeded-reproducible"]),
    Variant("crop-off-by-one", [m("idx[:, -self.config.block_size:]", "idx[:, -(self.config.block_size + 1):]")],
            ["generation.crops-context"]),
]

# Probes each test needs, so a fixture runs only what its expectations use.
PROBES_FOR = {
    "data.": ["get_batch_targets", "get_batch_coverage"],
    "general.forward-shapes": ["forward_shapes"], "general.finite-outputs": ["forward_shapes"],
    "general.eval-deterministic": ["eval_determinism"],
    "loss.": ["loss_consistency", "init_loss", "loss_invariances"],
    "positional.receives-gradient": ["positional_gradient"],
    "positional.depends-on-position": ["order_dependence"], "general.final-norm": ["final_norm"],
    "general.interface": ["interface"],
    "attention.causal-perturb": ["causality_perturb"], "attention.causal-extreme-scores": ["causality_extreme"],
    "attention.causal-gradient": ["causality_gradient"],
    "attention.rows-": ["attention_rows"], "attention.score-scale": ["attention_scale"],
    "general.block-residual-identity": ["block_identity"], "general.mlp-nonlinear": ["mlp_nonlinearity"],
    "attention.no-batch-mixing": ["batch_independence", "causality_gradient"],
    "training.": ["train_step_gradients", "train_step_clipping", "evaluate_mode"],
    "generation.": ["generation", "seeded_generation"],
    "equivalence.": ["equivalence"],
}


def probes_for(test_ids: list[str]) -> list[str]:
    out: list[str] = []
    for test_id in test_ids:
        for prefix, names in PROBES_FOR.items():
            if test_id.startswith(prefix):
                out += [n for n in names if n not in out]
    return out
