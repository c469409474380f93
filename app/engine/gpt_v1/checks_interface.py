"""The gpt-v1 interface first: what it expects, whether the candidate meets it, and which tests
cannot run because an item is unmet or a training run crashed."""

from __future__ import annotations

from app.engine.gpt_v1.verdicts import Fail, probe
from app.engine.measurements import Measurements

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
# Runs whose crash leaves their tests without measurements, and what each run relies on.
RUNS = {"training_run": "the tiny training run", "leak_probe": "the training run on random tokens"}
IMPLIED = {
    "forward": ("model",), "forward_targets": ("model",), "generate": ("model",),
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
    out = {name: f"the gpt-v1 interface expects {EXPECTED[name]}, but {item.get('found')}"
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
        raise Fail("the code does not follow the gpt-v1 interface; it expects " + "; and ".join(unmet)
                   + ". Tests that rely on it were not run.")
    return "the code follows the gpt-v1 interface"


def training_completes(c: Measurements, r: Measurements) -> str:
    for name, what in RUNS.items():
        run = c.readings(name)
        if run is None:
            raise Fail(f"{what} produced no measurements")
        if "exception" in run:
            raise Fail(f"{what} stopped with {run['exception']}")
    return "the training runs complete"
