"""One optimisation step and a validation pass; the training script calls these in its loop."""

import torch

ACCUM_STEPS = 2  # micro-batches per step: halves activation memory on the production machine


def train_step(model, optimizer, x, y, grad_clip=1.0):
    """One optimisation step on (x, y), accumulating gradients over micro-batches; returns the loss."""
    optimizer.zero_grad(set_to_none=True)
    n_targets = (y != -1).sum()
    total = 0.0
    for xs, ys in zip(x.chunk(ACCUM_STEPS), y.chunk(ACCUM_STEPS), strict=True):
        _, loss = model(xs, ys)
        # weight the micro-batch mean by its share of the targets: the sum is the full-batch mean
        loss = loss * ((ys != -1).sum() / n_targets)
        loss.backward()
        total += loss.item()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    return total


@torch.no_grad()
def evaluate(model, batches):
    """Mean loss over (x, y) batches in eval mode; the model is left in the mode it was in."""
    was_training = model.training
    model.eval()
    try:
        losses = [model(x, y)[1].item() for x, y in batches]
    finally:
        model.train(was_training)
    return sum(losses) / len(losses)
