"""The gpt-v1 interface first: what it expects, whether the candidate meets it, and which tests
cannot run because an item is unmet or a training run crashed."""

from __future__ import annotations

from app.engine.shared.judging import InterfaceNeeds

# What the interface (CONTRACTS.md section 1) expects, item by item, in the words a candidate reads.
EXPECTED = {
    "model": "model.py to define GPTConfig, built with exactly the keyword arguments vocab_size, block_size, "
             "n_layer, n_head, n_embd and dropout, and GPT(config), an nn.Module",
    "forward": "model(idx) to return (logits, None) with logits of shape (B, T, vocab_size): "
               "the logits of every position",
    "forward_targets": "model(idx, targets) to return (logits, loss) with logits of shape (B, T, vocab_size) "
                       "and loss a single number",
    "generate": "generate(idx, max_new_tokens, temperature=1.0, top_k=None, generator=None)",
    "get_batch": "get_batch(data, block_size, batch_size, generator) to return (x, y), "
                 "each of shape (batch_size, block_size)",
    "train_step": "train.py to define train_step(model, optimizer, x, y, grad_clip=1.0)",
    "evaluate": "train.py to define evaluate(model, batches)",
}
IMPLIED = {
    "forward": ("model",), "forward_targets": ("model",), "generate": ("model",),
    "training_run": ("forward_targets", "get_batch", "train_step"), "leak_probe": ("forward_targets",),
}

NEEDS = InterfaceNeeds("gpt-v1", EXPECTED, IMPLIED)
# The checks behind general.interface and training.completes, and the not-run rules (judging.py).
interface_met, training_completes = NEEDS.interface_met, NEEDS.training_completes
