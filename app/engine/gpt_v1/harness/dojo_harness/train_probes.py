"""Probes on train.py (train_step, evaluate) for scenarios about the training loop."""

import copy

import torch

from .loading import build_model, forward, tokens
from .optim import AdamW


def _copy(model):
    """A deep copy of the model. Tensors that are results of a computation, kept as attributes (llama2.c
    keeps its last loss on the model), cannot be deep-copied: the copy gets them detached."""
    kept = [(m, name, value) for m in model.modules() for name, value in vars(m).items()
            if isinstance(value, torch.Tensor) and value.grad_fn is not None]
    for m, name, value in kept:
        object.__setattr__(m, name, value.detach())
    try:
        return copy.deepcopy(model)
    finally:
        for m, name, value in kept:
            object.__setattr__(m, name, value)


def _fresh_grads(model, x, y):
    clone = _copy(model)
    clone.zero_grad(set_to_none=True)
    _, loss = forward(clone, x, y)
    loss.backward()
    grads = {n: (p.grad.detach().clone() if p.grad is not None else None)
             for n, p in clone.named_parameters() if p.requires_grad}
    return grads, float(loss.detach())


class StepSpy:
    """Wraps optimizer.step to record the gradients (and their total norm) the optimizer used."""

    def __init__(self, model, optimizer):
        self.model, self.optimizer, self.calls = model, optimizer, []
        self._step = optimizer.step
        optimizer.step = self._spy

    def _spy(self, *args, **kwargs):
        grads = {n: (p.grad.detach().clone() if p.grad is not None else None)
                 for n, p in self.model.named_parameters() if p.requires_grad}
        norms = [g.norm() for g in grads.values() if g is not None]
        total = float(torch.linalg.vector_norm(torch.stack(norms))) if norms else 0.0
        self.calls.append({"grads": grads, "norm": total})
        return self._step(*args, **kwargs)


def _grad_diff(used, fresh):
    worst, missing = 0.0, 0
    for name, g in fresh.items():
        u = used.get(name)
        if g is None:
            continue
        if u is None:
            missing += 1
            continue
        worst = max(worst, float((u - g).abs().max()) / (1e-12 + float(g.abs().max())))
    return worst, missing


def train_step_gradients(mods):
    """Gradients used at steps 1 and 2 against fresh gradients of each batch's own loss."""
    train = mods["train"]
    model = build_model(mods["model"], train=True)
    optimizer = AdamW(model.parameters(), lr=1e-2)
    spy = StepSpy(model, optimizer)
    batches = [(tokens((3, 12), seed=40 + i), tokens((3, 12), seed=50 + i)) for i in range(2)]
    out = {}
    for i, (x, y) in enumerate(batches, start=1):
        fresh, fresh_loss = _fresh_grads(model, x, y)
        before = [p.detach().clone() for p in model.parameters()]
        returned = train.train_step(model, optimizer, x, y, grad_clip=1e9)
        changed = any(not torch.equal(b, p) for b, p in zip(before, model.parameters(), strict=False))
        step = {"step_calls": len(spy.calls), "params_changed": changed,
                "returned": float(returned) if returned is not None else None, "fresh_loss": fresh_loss}
        if len(spy.calls) == i:
            step["grad_diff"], step["missing"] = _grad_diff(spy.calls[-1]["grads"], fresh)
        out[f"step{i}"] = step
    return out


def train_step_clipping(mods, clip=0.01):
    """Total gradient norm the optimizer sees when train_step is asked to clip at a small value."""
    model = build_model(mods["model"], train=True)
    optimizer = AdamW(model.parameters(), lr=1e-3)
    spy = StepSpy(model, optimizer)
    x, y = tokens((3, 12), seed=60), tokens((3, 12), seed=61)
    mods["train"].train_step(model, optimizer, x, y, grad_clip=clip)
    return {"clip": clip, "step_calls": len(spy.calls), "norm": spy.calls[0]["norm"] if spy.calls else None}


def evaluate_mode(mods):
    """evaluate(): eval mode inside, the caller's mode restored after, and the mean of batch losses."""
    evaluate = mods["train"].evaluate
    model = build_model(mods["model"], dropout=0.3, train=True)
    modes = []
    hook = model.register_forward_pre_hook(lambda m, args: modes.append(m.training))
    batches = [(tokens((3, 12), seed=70 + i), tokens((3, 12), seed=80 + i)) for i in range(3)]
    try:
        value = evaluate(model, batches)
        after_train = model.training
        model.eval()
        evaluate(model, batches)
        after_eval = model.training
    finally:
        hook.remove()
    with torch.no_grad():
        expected = sum(float(forward(model, x, y)[1]) for x, y in batches) / len(batches)
    return {"value": float(value), "expected": expected, "any_train_forward": any(modes),
            "forwards": len(modes), "restored_train": after_train, "restored_eval": not after_eval}
