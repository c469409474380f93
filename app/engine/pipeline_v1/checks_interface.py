"""The pipeline-v1 interface first: what it expects (CONTRACTS.md section 1c), whether the candidate meets
it, and which tests cannot run because an item is unmet (the semantics of the other interfaces)."""

from __future__ import annotations

from app.engine.shared.judging import InterfaceNeeds

# What the interface expects, item by item, in the words a candidate reads.
EXPECTED = {
    "collate": "data.py to define collate(examples, pad_id) returning input_ids, attention_mask and labels",
    "split": "data.py to define split(documents, val_fraction, seed) returning (train, val)",
    "batches": "data.py to define batches(examples, batch_size, epoch, seed) returning a list of batches",
    "build_optimizer": "train.py to define build_optimizer(model, lr, weight_decay, betas=(0.9, 0.95))",
    "get_lr": "train.py to define get_lr(step, warmup_steps, max_steps, max_lr, min_lr)",
    "train_step": "train.py to define train_step(model, optimizer, micro_batches, grad_clip=1.0, scaler=None, "
                  "amp_dtype=None)",
    "evaluate": "train.py to define evaluate(model, batches)",
    "save_checkpoint": "train.py to define save_checkpoint(path, model, optimizer, step)",
    "load_checkpoint": "train.py to define load_checkpoint(path, model, optimizer)",
}
IMPLIED = {"resume": ("build_optimizer", "train_step", "save_checkpoint", "load_checkpoint"),
           "training_run": ("collate", "split", "batches", "build_optimizer", "get_lr", "train_step")}

NEEDS = InterfaceNeeds("pipeline-v1", EXPECTED, IMPLIED, runs={"training_run": "the tiny training run"})
# The checks behind general.interface and training.runs, and the not-run rules (judging.py).
interface_met, training_completes = NEEDS.interface_met, NEEDS.training_completes
