"""train_step through the judge's inputs: the gradients the optimizer is handed against the judge's own
float64 reference (the gradient of the mean cross-entropy over every target token of all micro-batches
together, its total norm clipped), with plain steps and with a real torch.amp.GradScaler("cpu").

The agent builds the grader's ProbeLM with a seed, runs the candidate's train_step with the grader's
SGD (or the scaler) and returns the gradients at each optimizer step; the judge builds the same model
and computes the reference.
"""

import torch

from . import probe_model
from .data_probes import EOS, PAD

NO_CLIP = 1e6  # a clip that never fires (the contract's grad_clip is always > 0)


def _relative(grads, reference):
    """max |g - ref| / max |ref| over every parameter (inf when a parameter's gradient is missing)."""
    scale = max(float(r.abs().max()) for r in reference.values()) or 1.0
    worst = 0.0
    for name, ref in reference.items():
        g = grads.get(name)
        if g is None or tuple(g.shape) != tuple(ref.shape):
            return float("inf")
        worst = max(worst, float((g.double() - ref).abs().max()) / scale)
    return worst


def _cosine(grads, reference):
    a = torch.cat([grads[n].double().flatten() for n in reference if n in grads])
    b = torch.cat([reference[n].flatten() for n in reference if n in grads])
    if a.numel() != b.numel() or not a.numel():
        return 0.0
    return float(a @ b / (a.norm() * b.norm() + 1e-300))


def _norm(grads):
    return float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads.values())))


def _case(session, name, micro_batches, *, grad_clip=NO_CLIP, seed=11, dtype="float64", **kwargs):
    """One train_step: what the optimizer was handed against the reference, for the checks."""
    handle = session.call("p_build", seed=seed, dtype=dtype, record=True)["handle"]
    out = session.call("p_train_step", handle=handle, micro_batches=micro_batches, grad_clip=grad_clip, **kwargs)
    twin = probe_model.build(seed=seed)
    reference, true_norm = probe_model.reference_grads(twin, micro_batches, grad_clip)
    steps = out.get("steps") or []
    case = {"name": name, "steps": len(steps), "true_norm": true_norm, "clip": grad_clip,
            "reference_norm": _norm(reference), "returned": out.get("returned"), "scale": out.get("scale")}
    with torch.no_grad():
        case["reference_loss"] = float(probe_model.token_mean_loss(twin, micro_batches))
    calls = out.get("forward_calls") or []
    case["autocast_calls"] = sum(1 for call in calls if len(call) > 3 and call[3])
    case["forward_calls"] = len(calls)
    if len(steps) == 1:
        grads = steps[0]["grads"]
        case.update(diff=_relative(grads, reference), cosine=_cosine(grads, reference), norm=_norm(grads),
                    missing=steps[0].get("none", []))
    session.call("drop", handles=[handle])
    return case, out, twin


def _micro(lengths_per_batch, seed):
    """Micro-batches of the grader's collate: each a list of example lengths (documents ending in EOS)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for lengths in lengths_per_batch:
        examples = [[*torch.randint(2, 32, (n - 1,), generator=g).tolist(), EOS] for n in lengths]
        out.append(probe_model.collate(examples, PAD))
    return out


def accumulation(session):
    """train_step on one micro-batch, on two of very unequal target counts (a 3-token document against
    four of 12), on four of equal counts, and on one micro-batch with a clip that fires: each step's
    gradients against the reference. Accumulation must equal one big batch whatever the split."""
    cases = {}
    cases["one"] = _case(session, "one", _micro([[6, 9]], 1))[0]
    cases["unequal"] = _case(session, "unequal", _micro([[3], [12, 12, 12, 12]], 2))[0]
    cases["equal"] = _case(session, "equal", _micro([[7, 7], [7, 7], [7, 7], [7, 7]], 3))[0]
    # one micro-batch, so the clip is judged apart from how micro-batches are weighed
    cases["clipped"] = _case(session, "clipped", _micro([[8, 5, 9]], 4), grad_clip=0.05)[0]
    return {"cases": cases, "splits": splits(session)}


SPLIT_LENGTHS = [3, 12, 5, 12, 4, 9, 12, 6]  # eight documents of very different target counts


def splits(session):
    """For the Accumulation check chart: the same eight documents as one batch and split into 2, 4 and 8
    micro-batches; per split, the norm of the gradient handed to the optimizer relative to the one-batch
    reference gradient's, and their relative difference (the reference's own code gives 1 and 0)."""
    out = []
    for k in (1, 2, 4, 8):
        size = len(SPLIT_LENGTHS) // k
        micro = _micro([SPLIT_LENGTHS[i:i + size] for i in range(0, len(SPLIT_LENGTHS), size)], 20)
        case = _case(session, f"split-{k}", micro)[0]
        ratio = case["norm"] / case["reference_norm"] if case.get("norm") is not None else None
        out.append({"micro_batches": k, "norm_ratio": ratio, "diff": case.get("diff")})
    return out


def scaler(session, init_scale=1024.0):
    """train_step with a torch.amp.GradScaler("cpu") of init_scale: the gradients handed to the optimizer
    against the reference without and with a clip that fires (true gradients, unscaled before clipping),
    with torch.autocast("cpu", torch.bfloat16) on a float32 model, and a step whose gradient is infinite
    (skipped by the scaler: parameters unchanged, scale halved)."""
    plain = _case(session, "scaled", _micro([[6, 8], [5]], 5), scaler_scale=init_scale)[0]
    # bfloat16 autocast on a float32 model, as a mixed-precision run on CPU trains: the forward runs under
    # autocast and the gradient is the reference's to bfloat16's precision
    autocast = _case(session, "autocast", _micro([[6, 8], [5]], 7), scaler_scale=init_scale, dtype="float32",
                     amp_dtype="bfloat16")[0]
    clipped = _case(session, "scaled-clipped", _micro([[6, 8], [5]], 5), grad_clip=0.05, scaler_scale=init_scale)[0]
    seed = 12
    handle = session.call("p_build", seed=seed)["handle"]
    before = session.call("p_params", handle=handle)
    out = session.call("p_train_step", handle=handle, micro_batches=_micro([[6, 7]], 6), grad_clip=1.0,
                       scaler_scale=init_scale, inf_grad="head.bias")
    after = out.get("params") or {}
    gaps = [(after[n].double() - before[n].double()).abs().max() if n in after else torch.tensor(float("inf"))
            for n in before]
    moved = float(torch.stack(gaps).nan_to_num(nan=float("inf")).max())
    session.call("drop", handles=[handle])
    inf_step = {"moved": moved, "scale": out.get("scale"),
                "steps": len(out.get("steps") or [])}
    return {"init_scale": init_scale, "plain": plain, "clipped": clipped, "inf_step": inf_step, "autocast": autocast}
