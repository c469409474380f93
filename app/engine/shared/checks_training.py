"""Checks on the tiny training run and on train.py's train_step/evaluate."""

from __future__ import annotations

import math

from app.engine.measurements import Measurements, ProbeReadings
from app.engine.shared.verdicts import Fail, num, probe

# Bands around the reference's final validation loss (nats); calibrated on correct variants
# (SDPA, additive mask, sinusoidal positions, per-head loop) — see tests/engine/test_variants.py.
NOT_LEARNING_MARGIN = 0.25
TOO_GOOD_MARGIN = 0.25


def _losses(d: ProbeReadings) -> list[float]:
    return [num(v) for v in d["train_loss"] + d["val_loss"] if v is not None]


def training_finite(c: Measurements, r: Measurements) -> str:
    d = probe(c, "training_run")
    if not all(math.isfinite(v) for v in _losses(d)):
        raise Fail("the training loss became NaN or infinite")
    if num(d["final_val_loss"]) > num(d["init_loss"]) + 0.5:
        raise Fail("the validation loss rose during training: training diverges")
    return "training stays finite"


def training_learns(c: Measurements, r: Measurements) -> str:
    d, ref = probe(c, "training_run"), probe(r, "training_run")
    final, base = num(d["final_val_loss"]), num(ref["final_val_loss"])
    unigram = num(ref["unigram_entropy"])
    if not math.isfinite(final):
        raise Fail("the validation loss is not a number")
    if final > base + NOT_LEARNING_MARGIN or final > unigram - 0.25:
        raise Fail(f"final validation loss {final:.3f} is well above the baseline {base:.3f} "
                   f"(unigram entropy {unigram:.3f}): the model is not learning the text")
    return f"final validation loss {final:.3f} vs baseline {base:.3f}"


def training_not_too_good(c: Measurements, r: Measurements) -> str:
    d, ref = probe(c, "training_run"), probe(r, "training_run")
    for key, what in (("final_val_loss", "validation"), ("final_train_loss", "training")):
        value, base = num(d[key]), num(ref[key])
        if math.isfinite(value) and value < base - TOO_GOOD_MARGIN:
            raise Fail(f"final {what} loss {value:.3f} is far below the baseline {base:.3f}: "
                       "too good to be true for this model and data")
    return "losses are not suspiciously far below the baseline"


def random_token_leak(c: Measurements, r: Measurements) -> str:
    d, ref = probe(c, "leak_probe"), probe(r, "leak_probe")
    loss, ln_v = num(d["final_loss"]), num(d["ln_vocab"])
    floor = min(num(ref["final_loss"]), ln_v) - 0.15
    if not (math.isfinite(loss) and loss >= floor):
        raise Fail(f"after training on uniformly random tokens, the loss on fresh random tokens is {loss:.3f}, "
                   f"below ln V = {ln_v:.3f}: "
                   "the model predicts tokens it should not be able to see")
    return "random tokens stay unpredictable"


def step_gradients(c: Measurements, r: Measurements) -> str:
    d = probe(c, "train_step_gradients")["step1"]
    if d["step_calls"] != 1:
        raise Fail(f"one train_step called optimizer.step {d['step_calls']} times")
    if d.get("missing") or not num(d.get("grad_diff")) <= 1e-6:
        raise Fail("the gradients the optimizer uses are not the gradients of this batch's loss")
    if not d["params_changed"]:
        raise Fail("train_step did not change the parameters")
    if not math.isclose(num(d["returned"]), num(d["fresh_loss"]), rel_tol=1e-6, abs_tol=1e-9):
        raise Fail("train_step does not return the loss of the batch it trained on")
    return "train_step applies this batch's gradients"


def gradients_reset(c: Measurements, r: Measurements) -> str:
    d = probe(c, "train_step_gradients")["step2"]
    if d["step_calls"] != 2 or d.get("missing") or not num(d.get("grad_diff")) <= 1e-6:
        raise Fail("at the second step the optimizer's gradients are not the second batch's own gradients: "
                   "something carries over between steps")
    return "each step starts from fresh gradients"


def clip_before_step(c: Measurements, r: Measurements) -> str:
    d = probe(c, "train_step_clipping")
    if d["step_calls"] != 1 or d["norm"] is None:
        raise Fail("train_step did not call optimizer.step exactly once")
    if not num(d["norm"]) <= d["clip"] * (1 + 1e-4) + 1e-9:
        raise Fail(f"with grad_clip={d['clip']} the optimizer stepped with gradient norm {num(d['norm']):.4f}")
    if num(d["norm"]) == 0:
        raise Fail("the optimizer stepped with all-zero gradients")
    return "gradients are clipped before the optimizer step"


def eval_mode(c: Measurements, r: Measurements) -> str:
    d = probe(c, "evaluate_mode")
    if d["forwards"] == 0:
        raise Fail("evaluate did not run the model")
    if d["any_train_forward"]:
        raise Fail("evaluate runs the model in training mode (dropout active)")
    if not (d["restored_train"] and d["restored_eval"]):
        raise Fail("after evaluate the model is not in the mode it was in before")
    return "evaluate uses eval mode and restores the caller's mode"


def evaluate_mean(c: Measurements, r: Measurements) -> str:
    d = probe(c, "evaluate_mode")
    if not math.isclose(num(d["value"]), num(d["expected"]), rel_tol=1e-6, abs_tol=1e-9):
        raise Fail(f"evaluate returned {num(d['value']):.4f}; the mean loss over the batches is "
                   f"{num(d['expected']):.4f}")
    return "evaluate returns the mean batch loss"
