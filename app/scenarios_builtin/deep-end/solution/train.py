"""One optimisation step and a validation pass; the training script calls these in its loop."""

import torch


def train_step(model, optimizer, x, y, grad_clip=1.0):
    """Run one optimisation step on the batch (x, y) and return its loss as a float."""
    _, loss = model(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if grad_clip is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    return loss.item()


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
