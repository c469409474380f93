"""Probes on train.py (train_step, evaluate) for scenarios about the training loop.

The agent runs the candidate's train_step with the harness's AdamW, whose step is spied on, and
returns the gradients the optimizer was handed (agent_training.py). The fresh gradients they are
compared with come from the judge's own request: a second copy of the model, given the trained
model's current parameters, differentiates the batch's loss (model.grads). The norms, differences and
means are computed here.
"""

import torch
from dojo_kit.remote import ObservationError, number, tensor

from .loading import build_model, forward, tokens
from .model_probes import _cross_entropy

MAX_STEPS = 100


def _fresh_grads(model, shadow, x, y):
    """The gradients of the batch's own loss at the model's current parameters (on `shadow`, a second
    copy of the model, so the model's own gradient buffers are left as train_step left them), and
    that loss."""
    model.refresh()
    with torch.no_grad():
        own = dict(shadow.named_parameters())
        for name, p in model.named_parameters():
            if name in own and not torch.equal(own[name], p):
                own[name].copy_(p)
    out = shadow.grads(x, y)
    return {name: g for name, g in out["grads"].items() if own[name].requires_grad}, out["loss"]


def _used(step):
    """The gradients the optimizer was handed at one step: {name: tensor or None}."""
    if not isinstance(step, dict):
        raise ObservationError("the optimizer's gradients are not a mapping")
    return {str(n): (None if g is None else tensor(g, f"the gradient of {n}")) for n, g in step.items()}


def _train_step(session, model, optimizer, x, y, grad_clip):
    model.sync()
    out = session.call("train_step", handle=model.handle, optimizer=optimizer, x=x, y=y, grad_clip=grad_clip)
    used = out.get("used")
    if not isinstance(used, list) or len(used) > MAX_STEPS:
        raise ObservationError("the optimizer's steps did not come back")
    calls = out.get("step_calls")
    if not isinstance(calls, int) or isinstance(calls, bool):
        raise ObservationError("the number of optimizer steps is not a number")
    return out.get("returned"), calls, [_used(step) for step in used]


def _norm(grads):
    """Total norm of the gradients (as torch.nn.utils.clip_grad_norm_ measures it)."""
    norms = [g.norm() for g in grads.values() if g is not None]
    return float(torch.linalg.vector_norm(torch.stack(norms))) if norms else 0.0


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


def _optimizer(session, model, lr):
    model.sync()
    return session.call("optimizer", handle=model.handle, lr=lr)["optimizer"]


def train_step_gradients(session):
    """Gradients used at steps 1 and 2 against fresh gradients of each batch's own loss."""
    model = build_model(session, train=True)
    shadow = build_model(session, train=True)
    optimizer = _optimizer(session, model, 1e-2)
    batches = [(tokens((3, 12), seed=40 + i), tokens((3, 12), seed=50 + i)) for i in range(2)]
    out, used_all = {}, []
    for i, (x, y) in enumerate(batches, start=1):
        fresh, fresh_loss = _fresh_grads(model, shadow, x, y)
        before = [p.detach().clone() for p in model.parameters()]
        returned, calls, used = _train_step(session, model, optimizer, x, y, grad_clip=1e9)
        used_all.extend(used)
        model.refresh()
        changed = any(not torch.equal(b, p) for b, p in zip(before, model.parameters(), strict=False))
        step = {"step_calls": calls, "params_changed": changed,
                "returned": number(returned, "the value train_step returned") if returned is not None else None,
                "fresh_loss": fresh_loss}
        if calls == i and len(used_all) == i:
            step["grad_diff"], step["missing"] = _grad_diff(used_all[-1], fresh)
        out[f"step{i}"] = step
    return out


def train_step_clipping(session, clip=0.01):
    """Total gradient norm the optimizer sees when train_step is asked to clip at a small value."""
    model = build_model(session, train=True)
    optimizer = _optimizer(session, model, 1e-3)
    x, y = tokens((3, 12), seed=60), tokens((3, 12), seed=61)
    _, calls, used = _train_step(session, model, optimizer, x, y, grad_clip=clip)
    return {"clip": clip, "step_calls": calls, "norm": _norm(used[0]) if calls and used else None}


def _evaluate(session, model, batches, train):
    out = session.call("evaluate", handle=model.handle, batches=batches, train=train)
    modes = out.get("modes")
    if not isinstance(modes, list) or not all(isinstance(m, bool) for m in modes):
        raise ObservationError("the forward modes did not come back")
    return out.get("value"), modes, bool(out.get("training_after"))


def evaluate_mode(session):
    """evaluate(): eval mode inside, the caller's mode restored after, and the mean of batch losses.
    The expected mean is the judge's own: the model's loss on each batch from a forward request in eval
    mode (and, beside it, the cross-entropy of those logits)."""
    model = build_model(session, dropout=0.3, train=True)
    batches = [(tokens((3, 12), seed=70 + i), tokens((3, 12), seed=80 + i)) for i in range(3)]
    model.sync()
    value, modes, after_train = _evaluate(session, model, batches, train=True)
    _, more, still_train = _evaluate(session, model, batches, train=False)
    modes += more
    model.eval()
    losses, entropies = [], []
    for x, y in batches:
        logits, loss = forward(model, x, y)
        losses.append(number(loss, "the loss"))
        entropies.append(_cross_entropy(logits, y))
    return {"value": number(value, "the value evaluate returned"), "expected": sum(losses) / len(losses),
            "expected_cross_entropy": sum(entropies) / len(entropies), "any_train_forward": any(modes),
            "forwards": len(modes), "restored_train": after_train, "restored_eval": not still_train}
