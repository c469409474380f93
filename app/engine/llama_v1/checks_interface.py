"""The llama-v1 interface first: what it expects, whether the candidate meets it, and which tests
cannot run because an item is unmet or a training run crashed (the semantics of gpt-v1's)."""

from __future__ import annotations

from app.engine.gpt_v1.verdicts import Fail, probe
from app.engine.measurements import Measurements

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
# Runs whose crash leaves their tests without measurements, and what each run relies on.
RUNS = {"training_run": "the tiny training run", "leak_probe": "the training run on random tokens"}
IMPLIED = {
    "forward": ("model",), "forward_targets": ("model",), "cache": ("model",), "generate": ("model",),
    "training_run": ("forward_targets", "get_batch", "train_step"), "leak_probe": ("forward_targets",),
}


def _expand(needs: tuple[str, ...]) -> list[str]:
    """Needs with what they rely on first: an unmet interface item explains more than a crash."""
    out: list[str] = []
    for need in needs:
        for item in [*_expand(IMPLIED.get(need, ())), need]:
            if item not in out:
                out.append(item)
    return out


def blocked(candidate: Measurements) -> dict[str, str]:
    """need -> why tests relying on it cannot run (unmet interface items, crashed training runs)."""
    items = (candidate.readings("interface") or {}).get("items") or {}
    out = {name: f"the llama-v1 interface expects {EXPECTED[name]}, but {item.get('found')}"
           for name, item in items.items() if name in EXPECTED and item.get("state") == "unmet"}
    for name, what in RUNS.items():
        run = candidate.readings(name)
        if run is not None and "exception" in run:
            out[name] = f"{what} stopped with {run['exception']}"
    return out


def not_run_reason(needs: tuple[str, ...], blocked_needs: dict[str, str]) -> str | None:
    """The first reason a test with these needs cannot run, or None."""
    return next((blocked_needs[n] for n in _expand(needs) if n in blocked_needs), None)


def interface_met(c: Measurements, r: Measurements) -> str:
    items = probe(c, "interface")["items"]
    unmet = [f"{EXPECTED[name]}, but {item['found']}" for name, item in items.items()
             if item.get("state") == "unmet" and name in EXPECTED]
    if unmet:
        raise Fail("the code does not follow the llama-v1 interface; it expects " + "; and ".join(unmet)
                   + ". Tests that rely on it were not run.")
    return "the code follows the llama-v1 interface"


def training_completes(c: Measurements, r: Measurements) -> str:
    for name, what in RUNS.items():
        run = c.readings(name)
        if run is None:
            raise Fail(f"{what} produced no measurements")
        if "exception" in run:
            raise Fail(f"{what} stopped with {run['exception']}")
    return "the training runs complete"
