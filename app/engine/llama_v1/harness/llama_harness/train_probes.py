"""train.py's get_lr over a schedule and train_step's gradient accumulation over micro-batches."""

import math

import torch
from dojo_harness.errors import describe
from dojo_harness.loading import tokens
from dojo_harness.optim import AdamW
from dojo_harness.train_probes import StepSpy, _fresh_grads, _grad_diff

from .loading import build_llama

SCHEDULES = (("warmup", 10, 100, 1e-3, 1e-4), ("no-warmup", 0, 50, 3e-3, 3e-4))


def _number(value):
    value = float(value)
    return value if math.isfinite(value) else str(value)


def lr_schedule(mods):
    """get_lr at every step from 0 to max_steps + 5, for a schedule with warmup and one without."""
    get_lr = mods["train"].get_lr
    out = {}
    for name, warmup, max_steps, max_lr, min_lr in SCHEDULES:
        case: dict[str, object] = {"warmup_steps": warmup, "max_steps": max_steps, "max_lr": max_lr, "min_lr": min_lr}
        try:
            case["lr"] = [_number(get_lr(step, warmup, max_steps, max_lr, min_lr)) for step in range(max_steps + 6)]
        except Exception as exc:
            case["exception"] = describe(exc, mods.get("_dir"))
        out[name] = case
    return out


def _micro_batches():
    """Two micro-batches of different lengths and padding: 12 and 34 target tokens."""
    x1, y1 = tokens((2, 8), seed=130), tokens((2, 8), seed=131)
    y1[1, 4:] = -1
    x2, y2 = tokens((3, 12), seed=132), tokens((3, 12), seed=133)
    y2[2, 10:] = -1
    return [(x1, y1), (x2, y2)]


def _one_batch(micro_batches, T=12):
    """The same examples as one batch: shorter sequences padded with targets of -1."""
    xs, ys = [], []
    for x, y in micro_batches:
        pad = T - x.size(1)
        xs.append(torch.cat([x, torch.zeros(x.size(0), pad, dtype=x.dtype)], dim=1))
        ys.append(torch.cat([y, torch.full((y.size(0), pad), -1, dtype=y.dtype)], dim=1))
    return torch.cat(xs).contiguous(), torch.cat(ys).contiguous()


def accumulation(mods):
    """The gradients the optimizer uses after train_step on two micro-batches of unequal token counts,
    against the gradient of the mean loss over all their target tokens as one batch."""
    model = build_llama(mods["model"], train=True)
    optimizer = AdamW(model.parameters(), lr=1e-2)
    spy = StepSpy(model, optimizer)
    micro_batches = _micro_batches()
    fresh, fresh_loss = _fresh_grads(model, *_one_batch(micro_batches))
    returned = mods["train"].train_step(model, optimizer, [(x.contiguous(), y.contiguous()) for x, y in micro_batches],
                                        grad_clip=1e9)
    out = {"step_calls": len(spy.calls), "fresh_loss": fresh_loss,
           "returned": float(returned) if returned is not None else None}
    if len(spy.calls) == 1:
        out["grad_diff"], out["missing"] = _grad_diff(spy.calls[0]["grads"], fresh)
    return out
