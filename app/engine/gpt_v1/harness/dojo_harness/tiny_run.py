"""The tiny training run on the shipped corpus, and the random-token leak probe."""

import math
import os
import time

import torch
from dojo_kit import progress

from .loading import build_model, forward
from .optim import AdamW

_randint = torch.randint
_stack = torch.stack


def load_corpus(path):
    """Character vocabulary and the fixed 90/10 train/val split."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = torch.tensor([stoi[ch] for ch in text], dtype=torch.long)
    n = int(0.9 * len(data))
    return {"chars": chars, "train": data[:n], "val": data[n:]}


def trusted_batch(data, block_size, batch_size, generator):
    """Next-token batches built by the harness (never the candidate's get_batch)."""
    ix = _randint(len(data) - block_size, (batch_size,), generator=generator)
    x = _stack([data[i: i + block_size] for i in ix])
    y = _stack([data[i + 1: i + 1 + block_size] for i in ix])
    return x, y


def unigram_entropy(data, vocab_size):
    counts = torch.bincount(data, minlength=vocab_size).double()
    p = counts[counts > 0] / counts.sum()
    return float(-(p * p.log()).sum())


def _val_loss(model, batches):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        losses = [float(forward(model, x, y)[1]) for x, y in batches]
    model.train(was_training)
    return sum(losses) / len(losses)


def _own_step(model, optimizer, x, y, grad_clip=1.0):
    _, loss = forward(model, x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    return float(loss.detach())


def training_run(mods, corpus, cfg):
    """Train the candidate's model with the candidate's get_batch (and train_step when present)."""
    t0 = time.perf_counter()
    V = len(corpus["chars"])
    block, batch, steps = cfg["block_size"], cfg["batch_size"], cfg["steps"]
    model = build_model(mods["model"], vocab_size=V, block_size=block, n_layer=cfg["n_layer"],
                        n_head=cfg["n_head"], n_embd=cfg["n_embd"], seed=cfg["seed"],
                        dtype=torch.float32, train=True)
    optimizer = AdamW(model.parameters(), lr=cfg["learning_rate"])
    step_fn = mods["train"].train_step if "train" in mods else _own_step
    g_train = torch.Generator().manual_seed(cfg["seed"])
    g_val = torch.Generator().manual_seed(cfg["seed"] + 1)
    val_batches = [trusted_batch(corpus["val"], block, batch, g_val) for _ in range(cfg["eval_batches"])]
    interval = cfg["eval_interval"]
    curve = {"steps": [0], "train_loss": [None], "val_loss": [_val_loss(model, val_batches)]}
    recent = []
    progress.report("training", k=0, n=steps)
    for step in range(1, steps + 1):
        x, y = mods["data"].get_batch(corpus["train"], block, batch, g_train)
        loss = float(step_fn(model, optimizer, x, y, grad_clip=1.0))
        recent.append(loss)
        if not math.isfinite(loss):
            break
        if step % interval == 0 or step == steps:
            curve["steps"].append(step)
            curve["train_loss"].append(sum(recent) / len(recent))
            curve["val_loss"].append(_val_loss(model, val_batches))
            recent = []
            progress.report("training", k=step, n=steps)
    model.eval()
    prompt_text = cfg["prompt"]
    stoi = {ch: i for i, ch in enumerate(corpus["chars"])}
    prompt = torch.tensor([[stoi[ch] for ch in prompt_text if ch in stoi]], dtype=torch.long)
    sample = None
    try:
        with torch.no_grad():
            out = model.generate(prompt, cfg["sample_tokens"], generator=torch.Generator().manual_seed(0))
        sample = "".join(corpus["chars"][int(i)] for i in out[0].tolist() if 0 <= int(i) < V)
    except Exception as exc:
        sample = None
        curve["sample_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    return {
        **curve, "vocab_size": V, "init_loss": curve["val_loss"][0],
        "final_val_loss": curve["val_loss"][-1],
        "final_train_loss": curve["train_loss"][-1],
        "unigram_entropy": unigram_entropy(corpus["val"], V), "sample": sample, "model": model,
        "seconds": round(time.perf_counter() - t0, 3),
    }


def leak_probe(mods, vocab_size, cfg):
    """Train on uniform random tokens: a causal model cannot beat ln V; a leaky one can."""
    block, batch = cfg["block_size"], cfg["batch_size"]
    model = build_model(mods["model"], vocab_size=vocab_size, block_size=block, n_layer=cfg["n_layer"],
                        n_head=cfg["n_head"], n_embd=cfg["n_embd"], seed=cfg["seed"],
                        dtype=torch.float32, train=True)
    optimizer = AdamW(model.parameters(), lr=cfg["learning_rate"])
    g = torch.Generator().manual_seed(cfg["seed"] + 2)
    stream = _randint(0, vocab_size, (20000,), generator=g)
    losses = []
    for _ in range(cfg["leak_steps"]):
        x, y = trusted_batch(stream, block, batch, g)
        losses.append(_own_step(model, optimizer, x, y))
    tail = losses[-10:]
    return {"final_loss": sum(tail) / len(tail), "ln_vocab": math.log(vocab_size), "steps": len(losses)}


def corpus_path(harness_dir):
    return os.path.join(harness_dir, "corpus.txt")
