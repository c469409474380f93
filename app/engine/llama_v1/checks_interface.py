"""The llama-v1 interface first: what it expects, whether the candidate meets it, and which tests
cannot run because an item is unmet or a training run crashed (the semantics of gpt-v1's)."""

from __future__ import annotations

from app.engine.shared.judging import InterfaceNeeds

# What the interface (CONTRACTS.md section 1b) expects, item by item, in the words a candidate reads.
EXPECTED = {
    "model": "model.py to define ModelArgs, built with exactly the keyword arguments dim, n_layers, n_heads, "
             "n_kv_heads, vocab_size, max_seq_len, hidden_dim, norm_eps, rope_theta and dropout, and "
             "Transformer(args), an nn.Module",
    "forward": "model(tokens) to return (logits, None) with logits of shape (B, T, vocab_size): "
               "the logits of every position",
    "forward_targets": "model(tokens, targets) to return (logits, loss) with logits of shape (B, T, vocab_size) "
                       "and loss a single number",
    "cache": "new_cache(batch_size) to return a cache, and model(tokens, cache=cache, start_pos=0) to return "
             "(logits, loss) with logits of shape (B, T, vocab_size)",
    "generate": "generate(idx, max_new_tokens, temperature=1.0, top_k=None, top_p=None, generator=None, "
                "use_cache=True)",
    "get_batch": "get_batch(data, block_size, batch_size, generator) to return (x, y), "
                 "each of shape (batch_size, block_size)",
    "train_step": "train.py to define train_step(model, optimizer, micro_batches, grad_clip=1.0)",
    "evaluate": "train.py to define evaluate(model, batches)",
    "get_lr": "train.py to define get_lr(step, warmup_steps, max_steps, max_lr, min_lr)",
}
IMPLIED = {
    "forward": ("model",), "forward_targets": ("model",), "cache": ("model",), "generate": ("model",),
    "training_run": ("forward_targets", "get_batch", "train_step"), "leak_probe": ("forward_targets",),
}

NEEDS = InterfaceNeeds("llama-v1", EXPECTED, IMPLIED)
# The checks behind general.interface and training.completes, and the not-run rules (judging.py).
interface_met, training_completes = NEEDS.interface_met, NEEDS.training_completes
