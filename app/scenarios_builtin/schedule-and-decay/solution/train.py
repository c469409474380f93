"""The training pieces the grader's loop calls: the optimizer, the learning-rate schedule, one optimizer
step over accumulated micro-batches (mixed precision optional), evaluation and checkpoints."""

import contextlib
import math

import torch
import torch.nn.functional as F

IGNORE_INDEX = -100


def build_optimizer(model, lr, weight_decay, betas=(0.9, 0.95)):
    """AdamW with decoupled weight decay on matrices and embeddings only."""
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.dim() >= 2]  # weights and embeddings
    no_decay = [p for p in params if p.dim() < 2]  # biases and norm gains
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=betas)


def get_lr(step, warmup_steps, max_steps, max_lr, min_lr):
    """Linear warmup (above 0 from step 0) to max_lr at warmup_steps, a half cosine down to min_lr at
    max_steps, then min_lr."""
    if step < warmup_steps:
        return max_lr * (step + 1) / (warmup_steps + 1)
    if step > max_steps:
        return min_lr
    ratio = (step - warmup_steps) / (max_steps - warmup_steps)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (max_lr - min_lr)


def loss_sum(model, batch, amp_dtype=None):
    """The cross-entropy summed over the batch's target tokens, computed in float32 or wider."""
    autocast = torch.autocast("cpu", dtype=amp_dtype) if amp_dtype is not None else contextlib.nullcontext()
    with autocast:
        logits, _ = model(batch["input_ids"])
    if logits.dtype in (torch.float16, torch.bfloat16):
        logits = logits.float()
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), batch["labels"].reshape(-1),
                           ignore_index=IGNORE_INDEX, reduction="sum")


def train_step(model, optimizer, micro_batches, grad_clip=1.0, scaler=None, amp_dtype=None):
    """One optimizer step whose gradient is that of the mean loss over every target token of all the
    micro-batches together; returns that mean loss."""
    # micro-batches hold different numbers of target tokens: divide every one by the step's total
    n_tokens = sum(int((mb["labels"] != IGNORE_INDEX).sum()) for mb in micro_batches)
    optimizer.zero_grad(set_to_none=True)
    total = 0.0
    for mb in micro_batches:
        loss = loss_sum(model, mb, amp_dtype) / n_tokens
        if scaler is not None:
            scaler.scale(loss).backward()
        else:
            loss.backward()
        total += loss.item()
    if scaler is not None:
        scaler.unscale_(optimizer)  # clip the true gradients, not the scaled ones
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    if scaler is not None:
        scaler.step(optimizer)  # skips the step when a gradient is inf or NaN
        scaler.update()
    else:
        optimizer.step()
    return total


@torch.no_grad()
def evaluate(model, batches):
    """The mean cross-entropy over every target token of every batch, in eval mode."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for batch in batches:
        total += float(loss_sum(model, batch))
        count += int((batch["labels"] != IGNORE_INDEX).sum())
    model.train(was_training)
    return total / count


def save_checkpoint(path, model, optimizer, step):
    """The weights, the optimizer's state, the torch RNG state and the number of steps done."""
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "rng": torch.get_rng_state(), "step": step}, path)


def load_checkpoint(path, model, optimizer):
    """Restore what save_checkpoint wrote; returns the number of steps done (the next step to run)."""
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["rng"])
    return state["step"]
