"""Checks on evaluate and on checkpoints: the flags the recording model saw, evaluate's value against the
judge's token mean, and a resumed run against one never stopped."""

from __future__ import annotations

import math

from app.engine.measurements import Measurements
from app.engine.shared.verdicts import Fail, num, probe


def eval_mode(c: Measurements, r: Measurements) -> str:
    d = probe(c, "evaluate")
    if not int(d["calls"]):
        raise Fail("evaluate never called the model")
    if int(d["train_mode_calls"]):
        raise Fail(f"evaluate ran the model in training mode in {d['train_mode_calls']} of {d['calls']} calls: "
                   "dropout stays on and the loss is noisy; call model.eval() first")
    return "evaluate runs the model in eval mode"


def restores_train_mode(c: Measurements, r: Measurements) -> str:
    d = probe(c, "evaluate")
    if not d["training_after"]:
        raise Fail("after evaluate the model is left in eval mode: dropout is off for the rest of training")
    return "evaluate leaves the model in training mode"


def no_grad(c: Measurements, r: Measurements) -> str:
    d = probe(c, "evaluate")
    if int(d["grad_calls"]):
        raise Fail(f"evaluate builds a graph in {d['grad_calls']} of {d['calls']} calls: use torch.no_grad() or "
                   "torch.inference_mode()")
    return "evaluate builds no graph"


def eval_token_mean(c: Measurements, r: Measurements) -> str:
    d = probe(c, "evaluate")
    if d["value"] is None:
        raise Fail("evaluate did not return a number (a float, or a one-element tensor)")
    value, want = num(d["value"]), num(d["expected"])
    if not math.isclose(value, want, rel_tol=1e-6):
        hint = (" (the mean of the batches' means)" if math.isclose(value, num(d["mean_of_batch_means"]), rel_tol=1e-6)
                else "")
        raise Fail(f"evaluate returns {value:.6g}{hint} where the mean cross-entropy over every target token of "
                   f"every batch is {want:.6g}: batches of different token counts weigh by their tokens")
    return "evaluate returns the mean over every target token"


def resume_step(c: Measurements, r: Measurements) -> str:
    d = probe(c, "resume")
    if d["returned"] != d["saved_at"]:
        raise Fail(f"load_checkpoint returns {d['returned']} for a checkpoint saved after {d['saved_at']} steps: it "
                   "must return the number of steps done (the next step to run)")
    return "load_checkpoint returns the number of steps done"


def optimizer_state(c: Measurements, r: Measurements) -> str:
    d = probe(c, "resume")
    if int(d["loaded_state_keys"]) != int(d["state_keys"]) or d["state_diff"] is None \
            or not num(d["state_diff"]) <= 1e-12:
        raise Fail("after load_checkpoint into a fresh optimizer its state (Adam's moments and step counts) is not "
                   f"the saved one ({d['loaded_state_keys']} of {d['state_keys']} tensors, relative difference "
                   f"{num(d['state_diff']):.3g}): save and restore optimizer.state_dict()")
    return "the optimizer's state is restored"


def rng_state(c: Measurements, r: Measurements) -> str:
    d = probe(c, "resume")
    if not d["rng_restored"]:
        raise Fail("after load_checkpoint the torch RNG is not where it was at the save: dropout masks after a resume "
                   "differ from a run never stopped; save torch.get_rng_state() and restore it")
    return "the RNG state is restored"


def matches_uninterrupted(c: Measurements, r: Measurements) -> str:
    d = probe(c, "resume")
    if not num(d["final_diff"]) <= 1e-9:
        raise Fail(f"a run saved after {d['saved_at']} of {d['steps']} steps, loaded into fresh objects and continued "
                   f"ends with parameters that differ from a run never stopped (relative difference "
                   f"{num(d['final_diff']):.3g}), dropout on")
    return "a resumed run ends where a run never stopped ends"
