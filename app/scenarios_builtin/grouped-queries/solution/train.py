"""One optimisation step over micro-batches, a validation pass and the learning-rate schedule."""

import math

import torch


def train_step(model, optimizer, micro_batches, grad_clip=1.0):
    """One optimisation step on the micro-batches [(x, y), ...] as if they were one batch: the mean
    loss over all their target tokens. Returns that loss as a float."""
    optimizer.zero_grad(set_to_none=True)
    # micro-batches may hold different numbers of target tokens (-1 is padding): weight each one's
    # mean loss by its share of the step's tokens, so every token counts once
    n_tokens = sum(int((y != -1).sum()) for _, y in micro_batches)
    total = 0.0
    for x, y in micro_batches:
        _, loss = model(x, y)
        share = int((y != -1).sum()) / n_tokens
        (loss * share).backward()  # gradients add up across micro-batches
        total += loss.item() * share
    # clip the gradients the optimizer is about to use: guards against rare loss spikes
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    return total


@torch.no_grad()
def evaluate(model, batches):
    """Mean loss over (x, y) batches in eval mode; the model is left in the mode it was in."""
    was_training = model.training
    model.eval()
    losses = []
    for x, y in batches:
        _, loss = model(x, y)
        losses.append(loss.item())
    model.train(was_training)
    return sum(losses) / len(losses)


def get_lr(step, warmup_steps, max_steps, max_lr, min_lr):
    """Linear warmup to max_lr, then a cosine decay that reaches min_lr at max_steps and stays there."""
    if step < warmup_steps:
        return max_lr * (step + 1) / warmup_steps  # never 0: the first step already learns
    if step > max_steps:
        return min_lr
    progress = (step - warmup_steps) / (max_steps - warmup_steps)  # 0 at the end of warmup, 1 at max_steps
    return min_lr + 0.5 * (max_lr - min_lr) * (1.0 + math.cos(math.pi * progress))
