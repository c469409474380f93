"""train.py's get_lr over a schedule and train_step's gradient accumulation over micro-batches.

Judge side: the agent returns get_lr's values and the gradients the optimizer found when train_step
stepped; the judge's own gradients come from a backward of the model's loss on the judge's batch."""

import math

import torch
from dojo_kit.remote import ObservationError, number, tensor
from lm_probes.loading import tokens

from .loading import build_llama

SCHEDULES = (("warmup", 10, 100, 1e-3, 1e-4), ("no-warmup", 0, 50, 3e-3, 3e-4))
MAX_STEPS = 100


def _number(value):
    value = float(value)
    return value if math.isfinite(value) else str(value)


def lr_schedule(session):
    """get_lr at every step from 0 to max_steps + 5, for a schedule with warmup and one without."""
    replies = session.call("llama_get_lr", schedules=[list(s[1:]) for s in SCHEDULES])
    if not isinstance(replies, list) or len(replies) != len(SCHEDULES):
        raise ObservationError("get_lr's values did not come back")
    out = {}
    for (name, warmup, max_steps, max_lr, min_lr), reply in zip(SCHEDULES, replies, strict=True):
        case: dict[str, object] = {"warmup_steps": warmup, "max_steps": max_steps, "max_lr": max_lr, "min_lr": min_lr}
        if isinstance(reply, dict) and isinstance(reply.get("error"), str):
            case["exception"] = reply["error"][:600]
        elif isinstance(reply, dict) and isinstance(reply.get("lr"), list) and len(reply["lr"]) == max_steps + 6:
            case["lr"] = [_number(number(v, "a learning rate")) for v in reply["lr"]]
        else:
            raise ObservationError("get_lr's values did not come back")
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


def grad_diff(used, fresh):
    """Largest relative gap between the gradients the optimizer used and the judge's, and how many of
    the judge's were missing from what the optimizer saw."""
    worst, missing = 0.0, 0
    for name, g in fresh.items():
        u = used.get(name)
        if u is None:
            missing += 1
            continue
        worst = max(worst, float((u - g).abs().max()) / (1e-12 + float(g.abs().max())))
    return worst, missing


def _steps(reply):
    """The gradients the optimizer was handed at each step: [{name: tensor or None}]."""
    steps = reply.get("used") if isinstance(reply, dict) else None
    if not isinstance(steps, list) or len(steps) > MAX_STEPS or not all(isinstance(s, dict) for s in steps):
        raise ObservationError("the optimizer's gradients did not come back")
    return [{str(n): None if g is None else tensor(g, f"the gradient of {n}") for n, g in s.items()} for s in steps]


def accumulation(session):
    """The gradients the optimizer uses after train_step on two micro-batches of unequal token counts,
    against the gradient of the mean loss over all their target tokens as one batch."""
    model = build_llama(session, train=True)
    micro_batches = _micro_batches()
    fresh = model.grads(*_one_batch(micro_batches))
    model.sync()
    reply = session.call("llama_train_step_micro", handle=model.handle, micro_batches=micro_batches,
                         grad_clip=1e9, lr=1e-2)
    steps = _steps(reply)
    returned = reply.get("returned")
    out = {"step_calls": len(steps), "fresh_loss": fresh["loss"],
           "returned": None if returned is None else number(returned, "train_step's returned loss")}
    if len(steps) == 1:
        out["grad_diff"], out["missing"] = grad_diff(steps[0], fresh["grads"])
    return out
