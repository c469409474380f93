"""The tiny training run: the grader's loop over the candidate's pieces on the scenario's model.

The judge turns the corpus into documents (one line each, characters as token ids, EOS after the last,
the pad id equal to EOS as contract 1c allows) and keeps every tenth document to itself; the rest go to
the agent, which runs the loop on them: the candidate's split and batches give the order, collate the
micro-batches, build_optimizer the optimizer, get_lr each step's lr (set on every group before the step)
and train_step the step. Every EVERY steps the judge computes the validation loss itself: the model's
logits on its own held-out documents, collated by the judge, and their cross-entropy here. Nothing the
candidate's code reports about validation is read (the losses train_step returned are kept as facts).
"""

import math
import os
from collections import Counter

import torch
import torch.nn.functional as F
from dojo_kit import progress
from dojo_kit.remote import build as remote_build

from .probe_model import IGNORE, collate

ENTRY = ("GPTConfig", "GPT")  # the scenario's model.py follows gpt-v1 (CONTRACTS.md 1)
DEFAULT_TRAINING = {"steps": 200, "batch_size": 16, "block_size": 32, "n_layer": 2, "n_head": 4, "n_embd": 48,
                    "learning_rate": 3e-3, "seed": 1337}
# The judge's held-out documents: two batches of 32 (about 2,000 target tokens, as many as gpt-v1's
# training run validates on).
EVERY, ACCUM, VAL_BATCH, VAL_BATCHES = 25, 1, 32, 2


def corpus_documents(harness_dir, block_size):
    """(documents, vocabulary size, EOS id): one document per non-empty line of corpus.txt, at most
    block_size tokens with its EOS."""
    with open(os.path.join(harness_dir, "corpus.txt"), encoding="utf-8") as fh:
        lines = [line.strip() for line in fh if line.strip()]
    chars = sorted(set("".join(lines)))
    stoi = {c: i for i, c in enumerate(chars)}
    eos = len(chars)
    docs = [[stoi[c] for c in line[: block_size - 1]] + [eos] for line in lines]
    return docs, len(chars) + 1, eos


def _val_loss(model, batches):
    """The judge's own mean cross-entropy over every target token of its held-out batches."""
    total, count = 0.0, 0
    for batch in batches:
        logits, _ = model.forward(batch["input_ids"])
        labels = batch["labels"]
        total += float(F.cross_entropy(logits.double().reshape(-1, logits.size(-1)), labels.reshape(-1),
                                       ignore_index=IGNORE, reduction="sum"))
        count += int((labels != IGNORE).sum())
    return total / count


def _unigram_entropy(docs):
    """The entropy of the target tokens' frequencies (a loss a model that learnt only them would reach);
    counted in Python, a tenth of the time of a tensor per document."""
    counts = Counter(t for d in docs for t in d[1:])
    total = sum(counts.values())
    return -sum(c / total * math.log(c / total) for c in counts.values())


def training_run(session, harness_dir, cfg):
    """Train for cfg["steps"] steps; the judge's validation loss every EVERY steps beside the mean of
    what train_step returned over those steps, and the lr each step was given."""
    docs, vocab, eos = corpus_documents(harness_dir, int(cfg["block_size"]))
    held_out = docs[::10]
    given = [d for i, d in enumerate(docs) if i % 10]
    val_docs = held_out[:VAL_BATCHES * VAL_BATCH]
    val = [collate(val_docs[i:i + VAL_BATCH], eos) for i in range(0, len(val_docs), VAL_BATCH)]
    config = {"vocab_size": vocab, "block_size": int(cfg["block_size"]), "n_layer": int(cfg["n_layer"]),
              "n_head": int(cfg["n_head"]), "n_embd": int(cfg["n_embd"]), "dropout": 0.0}
    model = remote_build(session, ENTRY, config, seed=int(cfg["seed"]), dtype=torch.float32, train=True)
    steps, max_lr = int(cfg["steps"]), float(cfg["learning_rate"])
    run = session.call("p_run_start", handle=model.handle, documents=given, batch_size=int(cfg["batch_size"]),
                       max_lr=max_lr, seed=int(cfg["seed"]), pad_id=eos)
    out = {"steps": [0], "train_loss": [None], "val_loss": [], "lr": []}
    out["val_loss"].append(_val_loss(model, val))
    out["init_loss"] = out["val_loss"][0]
    for first in range(0, steps, EVERY):
        progress.report("training", k=first, n=steps)
        last = min(steps, first + EVERY)
        done = session.call("p_run_steps", run=run, first=first, last=last, steps=steps, accum=ACCUM,
                            warmup=max(1, steps // 20), min_lr=max_lr / 10)
        losses = [v for v in done["losses"] if isinstance(v, (int, float)) and math.isfinite(v)]
        out["lr"] += done["lrs"]
        out["steps"].append(last)
        out["train_loss"].append(sum(losses) / len(losses) if losses else None)
        out["val_loss"].append(_val_loss(model, val))
    out["final_val_loss"] = out["val_loss"][-1]
    out["final_train_loss"] = out["train_loss"][-1]
    out["unigram_entropy"] = _unigram_entropy(given)
    out["ln_vocab"] = math.log(vocab)
    session.call("drop", handles=[run, model.handle])
    return out
