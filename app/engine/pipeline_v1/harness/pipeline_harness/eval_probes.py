"""evaluate through the judge's inputs: the grader's recording ProbeLM (dropout on, training mode) and
batches of very different target counts, the last one smaller. The agent returns evaluate's value, the
mode after and each forward call's flags; the judge computes the mean cross-entropy over every target
token itself (eval mode, no dropout)."""

import torch

from . import probe_model
from .step_probes import _micro


def evaluate(session, seed=17):
    batches = _micro([[12, 12, 12], [4], [9, 3]], 8)
    handle = session.call("p_build", seed=seed, dropout=0.5, record=True)["handle"]
    out = session.call("p_evaluate", handle=handle, batches=batches)
    session.call("drop", handles=[handle])
    twin = probe_model.build(seed=seed, dropout=0.5).eval()
    with torch.no_grad():
        expected = float(probe_model.token_mean_loss(twin, batches))
        per_batch = [float(probe_model.token_mean_loss(twin, [b])) for b in batches]
    calls = out.get("calls") or []
    return {"value": out.get("value"), "expected": expected, "mean_of_batch_means": sum(per_batch) / len(per_batch),
            "training_after": out.get("training_after"), "calls": len(calls),
            "train_mode_calls": sum(1 for c in calls if c[0]), "grad_calls": sum(1 for c in calls if c[1])}
