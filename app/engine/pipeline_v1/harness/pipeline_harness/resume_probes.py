"""save_checkpoint / load_checkpoint against a run never stopped, with dropout on (CONTRACTS.md 1c).

Run A: the grader's loop over the candidate's build_optimizer and train_step for STEPS steps. Run B: the
same for K steps, save, then fresh objects (another init, the global RNG moved on, as in a new process),
load, and the remaining steps from the step load returned. The agent returns parameters, the optimizer's
state and the RNG state at the points the judge names; the judge compares: the step load returns, the
optimizer state and RNG state after load against A's after K steps, and the final parameters.
"""

import torch

from .optim_probes import BETAS, WD
from .step_probes import _micro

STEPS, K, LR = 8, 4, 0.01


def _relative(a, b):
    scale = max((float(v.abs().max()) for v in b.values()), default=1.0) or 1.0
    if set(a) != set(b) or any(tuple(a[n].shape) != tuple(b[n].shape) for n in b):
        return float("inf")
    worst = max(float((a[n].double() - b[n].double()).abs().max()) for n in b) / scale
    return worst if worst == worst else float("inf")


def resume(session, dropout=0.1):
    batches = [_micro([[7, 5], [6]], 30 + s) for s in range(STEPS)]

    def start(seed):
        session.call("p_seed", value=100)
        handle = session.call("p_build", seed=seed, dropout=dropout)["handle"]
        opt = session.call("p_build_optimizer", handle=handle, lr=LR, weight_decay=WD, betas=list(BETAS))["optimizer"]
        return handle, opt

    def steps(handle, opt, first, last, losses):
        for s in range(first, last):
            out = session.call("p_train_step", handle=handle, micro_batches=batches[s], grad_clip=1.0, lr=LR,
                               optimizer=opt)
            losses.append([s, out.get("returned")])

    a_losses, b_losses = [], []  # [step, the loss train_step returned]: the Resume check chart
    a, a_opt = start(21)
    steps(a, a_opt, 0, K, a_losses)
    a_state = session.call("p_optimizer_state", handle=a, optimizer=a_opt)
    a_rng = session.call("p_rng_state")
    steps(a, a_opt, K, STEPS, a_losses)
    a_final = session.call("p_params", handle=a)

    b, b_opt = start(21)
    steps(b, b_opt, 0, K, b_losses)
    session.call("p_save_checkpoint", handle=b, optimizer=b_opt, name="resume", step=K)
    session.call("p_seed", value=999)  # a new process's RNG is not the old one's
    c = session.call("p_build", seed=22, dropout=dropout)["handle"]
    c_opt = session.call("p_build_optimizer", handle=c, lr=LR, weight_decay=WD, betas=list(BETAS))["optimizer"]
    returned = session.call("p_load_checkpoint", handle=c, optimizer=c_opt, name="resume")
    c_state = session.call("p_optimizer_state", handle=c, optimizer=c_opt)
    c_rng = session.call("p_rng_state")
    first = returned if isinstance(returned, int) and 0 <= returned <= STEPS else K
    steps(c, c_opt, first, STEPS, b_losses)
    c_final = session.call("p_params", handle=c)
    session.call("drop", handles=[a, a_opt, b, b_opt, c, c_opt])
    rng_same = isinstance(a_rng, torch.Tensor) and isinstance(c_rng, torch.Tensor) and torch.equal(a_rng, c_rng)
    return {"steps": STEPS, "saved_at": K, "returned": returned if isinstance(returned, int) else repr(returned)[:80],
            "state_diff": _relative(c_state, a_state) if a_state else None, "state_keys": len(a_state),
            "loaded_state_keys": len(c_state), "rng_restored": rng_same, "final_diff": _relative(c_final, a_final),
            "uninterrupted_losses": a_losses, "resumed_losses": b_losses}
