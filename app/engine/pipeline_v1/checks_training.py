"""Checks on train.py's optimizer, schedule and train_step: the optimizer's groups and one step against
AdamW's rule, get_lr against the contract's shape, and the gradients handed to each optimizer step
against the judge's float64 reference (plain, clipped, through a GradScaler)."""

from __future__ import annotations

import math

from app.engine.measurements import Measurements, ProbeReadings
from app.engine.shared.verdicts import Fail, num, probe

GRAD_TOL = 1e-6  # float64 gradients, one sum or another
CLIP_TOL = 1e-5  # clipping: clip_grad_norm_ divides by norm + 1e-6, a hand-written clip may not


def every_parameter(c: Measurements, r: Measurements) -> str:
    d = probe(c, "optimizer")
    missing = [n for n, p in d["params"].items() if not p["groups"]]
    twice = [n for n, p in d["params"].items() if len(p["groups"]) > 1]
    if missing:
        raise Fail(f"the optimizer leaves out {len(missing)} trainable parameter(s) ({', '.join(missing)}): they never "
                   "change")
    if twice:
        raise Fail(f"the optimizer holds {', '.join(twice)} in more than one group: each parameter is stepped once")
    return "every trainable parameter is in exactly one optimizer group"


def decay_by_dimension(c: Measurements, r: Measurements) -> str:
    d = probe(c, "optimizer")
    wd = num(d["weight_decay"])
    wrong = []
    for name, p in d["params"].items():
        want = wd if len(p["shape"]) >= 2 else 0.0
        wrong += [f"{name} ({len(p['shape'])}-D) decays by {v:g}" for v in p["decay"] if not math.isclose(v, want)]
    if wrong:
        raise Fail("weight decay goes to the wrong parameters: " + "; ".join(wrong[:4]) + f". Matrices and "
                   f"embeddings decay by {wd:g}; biases and norm gains by 0")
    return "matrices and embeddings decay, biases and norm gains do not"


def decoupled_decay(c: Measurements, r: Measurements) -> str:
    d = probe(c, "optimizer")
    if not num(d["step_diff"]) <= 1e-9:
        raise Fail(f"one step of the optimizer ({d['class']}) with known gradients differs from AdamW's (relative "
                   f"difference {num(d['step_diff']):.3g}): weight decay must be decoupled, p -= lr * wd * p beside "
                   "the adaptive step, not added to the gradient as Adam's weight_decay does")
    return "one step applies AdamW's rule: decay decoupled from the adaptive step"


def _schedules(c: Measurements) -> list[ProbeReadings]:
    out = list(probe(c, "schedule")["schedules"])
    for s in out:
        if "error" in s:
            args = f"{s['warmup']}, {s['max_steps']}, {s['max_lr']}, {s['min_lr']}"
            raise Fail(f"get_lr(step, {args}) raised {s['error']}")
    return out


def lr_warmup(c: Measurements, r: Measurements) -> str:
    for s in _schedules(c):
        lr, w, top = [num(v) for v in s["lr"]], int(s["warmup"]), num(s["max_lr"])
        if not all(v > 0 for v in lr):
            first = next(i for i, v in enumerate(lr) if not v > 0)
            raise Fail(f"get_lr gives {lr[first]:g} at step {first} (warmup {w}): the lr must be above 0 at every "
                       "step, or that step learns nothing")
        if not math.isclose(lr[w], top, rel_tol=1e-9):
            raise Fail(f"get_lr gives {lr[w]:g} at step {w} = warmup_steps, where the warmup reaches max_lr = {top:g}")
        # the ramp may reach max_lr at warmup_steps - 1 ((step + 1) / warmup_steps) or at warmup_steps
        # ((step + 1) / (warmup_steps + 1)): up to the first step at max_lr it rises by equal steps
        top_at = next(i for i in range(w + 1) if math.isclose(lr[i], top, rel_tol=1e-9))
        ramp = lr[: top_at + 1]
        steps = [b - a for a, b in zip(ramp, ramp[1:], strict=False)]
        if any(st <= 0 for st in steps) or (len(steps) > 1 and max(steps) - min(steps) > 1e-9 * top):
            raise Fail(f"get_lr's warmup over steps 0..{w} is {[round(v, 8) for v in lr[: w + 1]]}: it must rise "
                       "linearly to max_lr")
    return "the warmup rises linearly from above 0 to max_lr at warmup_steps"


def lr_cosine(c: Measurements, r: Measurements) -> str:
    for s in _schedules(c):
        lr, w = [num(v) for v in s["lr"]], int(s["warmup"])
        for offset, want in enumerate(s["expected_after_warmup"]):
            step = w + offset
            if not math.isclose(lr[step], num(want), rel_tol=1e-9, abs_tol=1e-15):
                raise Fail(f"get_lr gives {lr[step]:g} at step {step} of a schedule with warmup {w} and max_steps "
                           f"{s['max_steps']}, where the half cosine from max_lr to min_lr (min_lr after max_steps) "
                           f"gives {num(want):g}")
    return "after warmup the lr follows the half cosine to min_lr at max_steps, then stays at min_lr"


def _case(c: Measurements, name: str) -> ProbeReadings:
    case = probe(c, "accumulation")["cases"][name]
    if int(case["steps"]) != 1:
        raise Fail(f"train_step called the optimizer's step {case['steps']} times for one call: one call is one step")
    return case


def _grads_match(case: ProbeReadings, tol: float, what: str) -> None:
    if not num(case["diff"]) <= tol:
        raise Fail(f"{what}: the gradient handed to the optimizer differs from that of the mean loss over every "
                   f"target token of all the micro-batches together (relative difference {num(case['diff']):.3g}; "
                   f"norm {num(case['norm']):.4g} where {num(case['reference_norm']):.4g} is expected)")


def accumulation_token_mean(c: Measurements, r: Measurements) -> str:
    _grads_match(_case(c, "unequal"), GRAD_TOL, "two micro-batches of 2 and 44 target tokens")
    _grads_match(_case(c, "one"), GRAD_TOL, "one micro-batch")
    return "accumulated gradients are those of the mean over every target token of the step"


def accumulation_equal_split(c: Measurements, r: Measurements) -> str:
    _grads_match(_case(c, "equal"), GRAD_TOL, "four micro-batches of equal token counts")
    return "four equal micro-batches give the gradient of one batch of all four"


def accumulation_every_micro_batch(c: Measurements, r: Measurements) -> str:
    case = _case(c, "equal")
    if not num(case["cosine"]) >= 1 - 1e-9:
        raise Fail("with four micro-batches of equal token counts, the gradient handed to the optimizer points "
                   f"elsewhere than the whole batch's (cosine {num(case['cosine']):.6f}): some micro-batches' "
                   "gradients are lost before the step")
    return "the step's gradient holds every micro-batch's contribution"


def clip_total_norm(c: Measurements, r: Measurements) -> str:
    case = _case(c, "clipped")
    if not num(case["diff"]) <= CLIP_TOL:
        raise Fail(f"with grad_clip {num(case['clip']):g} and a true gradient norm of {num(case['true_norm']):.4g}, "
                   f"the optimizer is handed a gradient of norm {num(case['norm']):.4g} that differs from the true "
                   f"gradient scaled to norm {num(case['clip']):g} (relative difference {num(case['diff']):.3g}): clip "
                   "the total L2 norm of all gradients, after every backward and before the step")
    return "the total gradient norm is clipped to grad_clip before the step"


def _scaler(c: Measurements) -> ProbeReadings:
    return probe(c, "scaler")


def scaler_unscaled_step(c: Measurements, r: Measurements) -> str:
    d = _scaler(c)
    case = d["plain"]
    if int(case["steps"]) != 1 or not num(case["diff"]) <= GRAD_TOL:
        ratio = num(case.get("norm")) / num(case["reference_norm"]) if case.get("norm") is not None else math.nan
        raise Fail(f"with a GradScaler (scale {num(d['init_scale']):g}) the optimizer is handed gradients "
                   f"{ratio:.4g} times the true ones (relative difference {num(case.get('diff')):.3g}, "
                   f"{case['steps']} step(s)): step through scaler.step(optimizer), which unscales them")
    return "with a GradScaler the optimizer is handed the true (unscaled) gradients"


def scaler_clips_true_gradients(c: Measurements, r: Measurements) -> str:
    d = _scaler(c)
    case = d["clipped"]
    if int(case["steps"]) != 1 or not num(case["diff"]) <= CLIP_TOL:
        raise Fail(f"with a GradScaler and grad_clip {num(case['clip']):g} the optimizer is handed a gradient of norm "
                   f"{num(case.get('norm')):.4g}, not the true gradient clipped to {num(case['clip']):g}: unscale "
                   "(scaler.unscale_(optimizer)) before clipping, or the clip measures the scaled norm")
    return "with a GradScaler the true gradients are clipped"


def scaler_skips_inf(c: Measurements, r: Measurements) -> str:
    d = _scaler(c)
    inf = d["inf_step"]
    if not num(inf["moved"]) == 0.0:
        raise Fail("a step whose gradient is infinite changed the parameters (by up to "
                   f"{num(inf['moved']):.3g}): with a GradScaler, scaler.step skips such a step")
    if not math.isclose(num(inf["scale"]), num(d["init_scale"]) / 2):
        raise Fail(f"after a step with an infinite gradient the scaler's scale is {num(inf['scale']):g}, not "
                   f"{num(d['init_scale']) / 2:g}: call scaler.update() after scaler.step")
    return "a step with an infinite gradient is skipped and the scale halves"


def autocast_step(c: Measurements, r: Measurements) -> str:
    case = _scaler(c)["autocast"]
    if not int(case["forward_calls"]) or int(case["autocast_calls"]) != int(case["forward_calls"]):
        raise Fail(f"with amp_dtype=torch.bfloat16, {case['autocast_calls']} of {case['forward_calls']} forward "
                   "calls ran under torch.autocast('cpu', torch.bfloat16): the forward must run under autocast")
    # bfloat16 keeps 8 bits of mantissa: a gradient within a few percent is the same step
    if int(case["steps"]) != 1 or not num(case["diff"]) <= 0.05:
        raise Fail(f"with bfloat16 autocast the gradient handed to the optimizer differs from the float64 reference "
                   f"by {num(case.get('diff')):.3g} (relative), beyond bfloat16's precision: compute the loss in "
                   "float32 or wider from the autocast logits")
    return "with amp_dtype the forward runs under bfloat16 autocast and the step's gradient is the true one"
