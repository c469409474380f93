"""The tiny training run on the shipped corpus, and the random-token leak probe.

Training runs in the agent (agent_training.py); what the run measures is the judge's: the validation
curve and the leak probe's final loss are cross-entropies it computes from the model's logits on
batches it built itself. The losses the training steps reported are kept as facts beside them."""

import math
import os
import time

import torch
from dojo_kit import progress
from dojo_kit.remote import ObservationError, number, tensor

from .errors import describe
from .loading import build_model
from .model_probes import _cross_entropy

_randint = torch.randint
_stack = torch.stack

# The tiny training run's settings unless a scenario sets its own (each interface's runner uses them).
DEFAULT_TRAINING = {
    "steps": 200, "batch_size": 16, "block_size": 32, "n_layer": 2, "n_head": 4, "n_embd": 48,
    "learning_rate": 3e-3, "seed": 1337, "eval_interval": 25, "eval_batches": 4,
    "leak_steps": 60, "sample_tokens": 80, "prompt": "MACBETH:\n",
}


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
    """The judge's mean cross-entropy of the model's logits (a forward request in eval mode) on its own
    batches; the mode is the training mode again afterwards."""
    was_training = model.training
    model.eval()
    mode = model.sync()
    logits = model.session.call("forwards", handle=model.handle, inputs=[x for x, _ in batches],
                                targets=[y for _, y in batches], **mode).get("logits")
    model.train(was_training)
    if not isinstance(logits, list) or len(logits) != len(batches):
        raise ObservationError("the validation logits did not all come back")
    losses = [_cross_entropy(tensor(z, "the logits"), y) for z, (_, y) in zip(logits, batches, strict=True)]
    return sum(losses) / len(losses)


def _trainer(session, model, lr, use_train_step, **data):
    model.sync()
    return session.call("trainer", handle=model.handle, lr=lr, use_train_step=use_train_step, **data)["trainer"]


def _train(session, trainer, steps, batches=None):
    """The losses the step function reported for `steps` steps on the candidate's get_batch, or one step
    per batch given (up to the first loss that is not finite): facts, never the run's measured losses."""
    what = {"steps": steps} if batches is None else {"batches": batches}
    losses = session.call("train", trainer=trainer, grad_clip=1.0, **what).get("losses")
    if not isinstance(losses, list) or len(losses) > steps:
        raise ObservationError("the training losses did not come back")
    return [number(v, "a training loss") for v in losses]


def training_run(session, corpus, cfg):
    """Train the candidate's model in the agent with the candidate's get_batch (and train_step when
    present). The validation curve is the judge's: at every eval interval, its own cross-entropy of the
    model's logits on its own validation batches. The training curve is what the steps reported."""
    t0 = time.perf_counter()
    V = len(corpus["chars"])
    block, batch, steps = cfg["block_size"], cfg["batch_size"], cfg["steps"]
    model = build_model(session, vocab_size=V, block_size=block, n_layer=cfg["n_layer"], n_head=cfg["n_head"],
                        n_embd=cfg["n_embd"], seed=cfg["seed"], dtype=torch.float32, train=True)
    trainer = _trainer(session, model, cfg["learning_rate"], "train" in session, data=corpus["train"],
                       block_size=block, batch_size=batch, seed=cfg["seed"])
    g_val = torch.Generator().manual_seed(cfg["seed"] + 1)
    val_batches = [trusted_batch(corpus["val"], block, batch, g_val) for _ in range(cfg["eval_batches"])]
    interval = cfg["eval_interval"]
    curve = {"steps": [0], "train_loss": [None], "val_loss": [_val_loss(model, val_batches)]}
    progress.report("training", k=0, n=steps)
    step = 0
    while step < steps:
        chunk = min(interval - step % interval, steps - step)
        losses = _train(session, trainer, chunk)
        step += len(losses)
        if len(losses) < chunk or not all(math.isfinite(v) for v in losses):
            break
        curve["steps"].append(step)
        curve["train_loss"].append(sum(losses) / len(losses))
        curve["val_loss"].append(_val_loss(model, val_batches))
        progress.report("training", k=step, n=steps)
    model.refresh().eval()
    prompt_text = cfg["prompt"]
    stoi = {ch: i for i, ch in enumerate(corpus["chars"])}
    prompt = torch.tensor([[stoi[ch] for ch in prompt_text if ch in stoi]], dtype=torch.long)
    sample = None
    try:
        out = model.generate(prompt, cfg["sample_tokens"], seed=0)
        sample = "".join(corpus["chars"][int(i)] for i in out[0].tolist() if 0 <= int(i) < V)
    except Exception as exc:  # the candidate's generate raised, or returned something else than tokens
        sample = None
        curve["sample_error"] = describe(exc)[:200]
    return {
        **curve, "vocab_size": V, "init_loss": curve["val_loss"][0],
        "final_val_loss": curve["val_loss"][-1],
        "final_train_loss": curve["train_loss"][-1],
        "unigram_entropy": unigram_entropy(corpus["val"], V), "sample": sample, "model": model,
        "seconds": round(time.perf_counter() - t0, 3),
    }


def leak_probe(session, vocab_size, cfg, eval_batches=8):
    """Train on uniform random tokens (the judge's batches, the harness's own step in the agent): a
    causal model cannot beat ln V; a leaky one can. The final loss is the judge's cross-entropy of the
    trained model's logits on fresh random batches it never trained on; the losses the steps reported
    are kept beside it."""
    block, batch = cfg["block_size"], cfg["batch_size"]
    model = build_model(session, vocab_size=vocab_size, block_size=block, n_layer=cfg["n_layer"],
                        n_head=cfg["n_head"], n_embd=cfg["n_embd"], seed=cfg["seed"],
                        dtype=torch.float32, train=True)
    g = torch.Generator().manual_seed(cfg["seed"] + 2)
    stream = _randint(0, vocab_size, (20000,), generator=g)
    batches = [trusted_batch(stream, block, batch, g) for _ in range(cfg["leak_steps"])]
    trainer = _trainer(session, model, cfg["learning_rate"], False)
    reported = _train(session, trainer, len(batches), batches)
    g_fresh = torch.Generator().manual_seed(cfg["seed"] + 3)
    fresh = _randint(0, vocab_size, (20000,), generator=g_fresh)
    loss = _val_loss(model, [trusted_batch(fresh, block, batch, g_fresh) for _ in range(eval_batches)])
    tail = reported[-10:]
    return {"final_loss": loss, "ln_vocab": math.log(vocab_size), "steps": len(reported),
            "reported_final_loss": sum(tail) / len(tail) if tail else None}


def corpus_path(harness_dir):
    return os.path.join(harness_dir, "corpus.txt")
