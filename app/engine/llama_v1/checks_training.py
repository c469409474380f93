"""Checks on train.py's learning-rate schedule and gradient accumulation over micro-batches."""

from __future__ import annotations

import math

from app.engine.measurements import Measurements, ProbeReadings
from app.engine.shared.verdicts import Fail, num, probe

REL = 1e-6


def _schedule(case: ProbeReadings) -> str | None:
    """What is wrong with one schedule, or None."""
    warmup, max_steps = case["warmup_steps"], case["max_steps"]
    max_lr, min_lr = num(case["max_lr"]), num(case["min_lr"])
    where = f"get_lr(step, warmup_steps={warmup}, max_steps={max_steps}, max_lr={max_lr:g}, min_lr={min_lr:g})"
    if "exception" in case:
        return f"{where} raised {case['exception']}"
    lr = [num(v) for v in case["lr"]]
    if not all(math.isfinite(v) for v in lr):
        return f"{where} is not a finite number at step {next(s for s, v in enumerate(lr) if not math.isfinite(v))}"
    if not lr[0] > 0:
        return f"{where} is {lr[0]:g} at step 0: the first step does not learn"
    for s in range(min(warmup, len(lr) - 1)):
        if lr[s + 1] < lr[s] * (1 - REL):
            return f"{where} falls during warmup (step {s}: {lr[s]:g}, step {s + 1}: {lr[s + 1]:g})"
    for s in range(warmup, max_steps):
        if lr[s + 1] > lr[s] * (1 + REL):
            return f"{where} rises after warmup (step {s}: {lr[s]:g}, step {s + 1}: {lr[s + 1]:g})"
    if max(lr) > max_lr * (1 + REL) or not math.isclose(max(lr), max_lr, rel_tol=REL):
        return f"{where} peaks at {max(lr):g}, not at max_lr"
    if not math.isclose(lr[max_steps], min_lr, rel_tol=REL):
        return f"{where} is {lr[max_steps]:g} at step max_steps, not min_lr"
    # Only after warmup: a warmup may start below min_lr (nanoGPT's rises from max_lr / (warmup + 1)).
    if min(lr[warmup:]) < min_lr * (1 - REL):
        return f"{where} goes below min_lr after warmup ({min(lr[warmup:]):g})"
    return None


def lr_schedule(c: Measurements, r: Measurements) -> str:
    for case in probe(c, "lr_schedule").values():
        wrong = _schedule(case)
        if wrong:
            raise Fail(wrong)
    return "the schedule warms up, decays monotonically and ends at min_lr"


def accumulation(c: Measurements, r: Measurements) -> str:
    d = probe(c, "accumulation")
    if d["step_calls"] != 1:
        raise Fail(f"one train_step over two micro-batches called optimizer.step {d['step_calls']} times")
    if d.get("missing") or not num(d.get("grad_diff")) <= 1e-6:
        raise Fail("over two micro-batches with 12 and 34 target tokens (the rest -1), the gradients the optimizer "
                   "uses differ from the gradient of the mean loss over all 46 tokens as one batch (relative "
                   f"difference {num(d.get('grad_diff')):.3g})")
    return "accumulated gradients equal the gradient of the mean over all the step's tokens"
