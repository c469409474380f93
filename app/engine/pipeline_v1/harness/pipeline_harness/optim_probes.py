"""build_optimizer and get_lr through the judge's inputs.

OPTIMIZER: the candidate's optimizer for the grader's ProbeLM: which group holds each parameter with
which weight decay (matrices and embeddings decay, vectors do not), and one step with gradients the
judge chose, against AdamW's rule computed here (decay decoupled from the adaptive step) with each
parameter's own group settings. SCHEDULE: get_lr over whole schedules against the contract's shape.
"""

import math

import torch

from . import probe_model

LR, WD, BETAS, EPS = 0.01, 0.1, (0.9, 0.95), 1e-8


def optimizer(session, seed=13):
    """Groups (each parameter's name, shape, group, decay) and the first step against AdamW's."""
    handle = session.call("p_build", seed=seed)["handle"]
    built = session.call("p_build_optimizer", handle=handle, lr=LR, weight_decay=WD, betas=list(BETAS))
    twin = probe_model.build(seed=seed)
    shapes = {n: list(p.shape) for n, p in twin.named_parameters()}
    groups = built.get("groups") or []
    membership = {n: [i for i, g in enumerate(groups) if n in g.get("params", [])] for n in shapes}
    foreign = sorted({p for g in groups for p in g.get("params", []) if p not in shapes})
    g = torch.Generator().manual_seed(seed + 1)
    grads = {n: torch.randn(p.shape, generator=g, dtype=torch.float64) for n, p in twin.named_parameters()}
    after = session.call("p_optimizer_step", handle=handle, optimizer=built["optimizer"], grads=grads)
    # AdamW's first step, each parameter with its own group's lr, decay and betas (bias-corrected moments
    # of one gradient are the gradient and its square): p - lr * wd * p - lr * g / (|g| + eps)
    step_diff = 0.0
    for name, p in twin.named_parameters():
        where = membership[name]
        if len(where) != 1 or name not in after:
            continue
        group = groups[where[0]]
        lr, wd = group["lr"], group["weight_decay"]
        want = p.detach() * (1 - lr * wd) - lr * grads[name] / (grads[name].abs() + EPS)
        scale = float(want.abs().max()) or 1.0
        step_diff = max(step_diff, float((after[name].double() - want).abs().max()) / scale)
    session.call("drop", handles=[handle, built["optimizer"]])
    return {"class": built.get("class"), "weight_decay": WD, "lr": LR,
            "params": {n: {"shape": shapes[n], "groups": membership[n],
                           "decay": [groups[i]["weight_decay"] for i in membership[n]],
                           "lr": [groups[i]["lr"] for i in membership[n]]} for n in shapes},
            "foreign": foreign, "step_diff": step_diff}


def expected_lr(step, warmup, max_steps, max_lr, min_lr):
    """The contract's schedule after warmup: the half cosine from max_lr at warmup_steps to min_lr at
    max_steps, min_lr after it (warmup itself is judged by its shape, not one formula)."""
    if step > max_steps:
        return min_lr
    ratio = (step - warmup) / (max_steps - warmup)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (max_lr - min_lr)


SCHEDULES = ([10, 50, 3e-3, 3e-4], [1, 8, 1.0, 0.1], [5, 30, 6e-4, 6e-5])


def schedule(session):
    """get_lr over each schedule (steps 0 .. max_steps + 5) with the contract's cosine part beside it."""
    answers = session.call("p_get_lr", schedules=[list(s) for s in SCHEDULES])
    out = []
    for (warmup, max_steps, max_lr, min_lr), answer in zip(SCHEDULES, answers, strict=True):
        entry = {"warmup": warmup, "max_steps": max_steps, "max_lr": max_lr, "min_lr": min_lr}
        if "error" in answer:
            entry["error"] = answer["error"]
        else:
            entry["lr"] = [float(v) for v in answer["lr"]]
            entry["expected_after_warmup"] = [expected_lr(s, warmup, max_steps, max_lr, min_lr)
                                              for s in range(warmup, max_steps + 6)]
        out.append(entry)
    return {"schedules": out}
