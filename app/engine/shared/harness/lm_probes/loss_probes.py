"""Loss self-consistency probes: properties of the model's own loss, with no reference formula.

Each measurement isolates one property of a mean next-token cross-entropy:
- target_alignment: the loss's gradient at each position favours that position's own target;
- sizes: with every parameter zeroed (all positions predicted alike), repeating the batch along B
  or shortening it leaves the loss unchanged (a mean, not a sum);
- padding: with every parameter zeroed, a batch padded with -1 targets has the same loss as the
  unpadded part alone.
"""

import torch
from dojo_kit.remote import ObservationError

from .errors import describe
from .loading import build_model, forward, tokens

B, T, V = 3, 12, 37


def _real_targets(shape, seed):
    """Targets in 1..V-1: neither the -1 padding marker nor token 0."""
    return tokens(shape, high=V - 1, seed=seed) + 1


def target_alignment(session):
    """With every target of sequence b equal to one token, d loss / d logits[b, t] (from the agent's
    backward of the model's own loss) is most negative at that token for every position that receives
    a gradient."""
    model = build_model(session)
    idx = tokens((B, T), seed=50)
    per_sequence = torch.tensor([3, 17, 29])
    targets = per_sequence.view(B, 1).expand(B, T).contiguous()
    try:
        grad = model.grads(idx, targets, logits_grad=True)["logits_grad"]
    except ObservationError:
        return {"applicable": False}
    if not isinstance(grad, torch.Tensor) or grad.shape != (B, T, V):
        return {"applicable": False}
    moving = grad.abs().amax(dim=-1) > 0
    favoured = grad.argmin(dim=-1)
    wrong = moving & (favoured != targets)
    return {"applicable": True, "positions": int(moving.sum()), "misaligned": int(wrong.sum())}


def _zeroed_model(session):
    """Every parameter zero: all positions get the same logits, so pairing does not matter."""
    model = build_model(session)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    return model


def sizes(session):
    """Zeroed parameters; the loss of a batch, of the batch repeated along B, and of a shorter batch."""
    model = _zeroed_model(session)
    idx, targets = tokens((B, T), seed=51), _real_targets((B, T), seed=52)
    short = 5
    with torch.no_grad():
        _, base = forward(model, idx, targets)
        _, double = forward(model, torch.cat([idx, idx]), torch.cat([targets, targets]))
        _, shorter = forward(model, idx[:, :short].contiguous(), targets[:, :short].contiguous())
    return {"base": float(base), "double": float(double), "short": float(shorter)}


def padding(session):
    """Zeroed parameters; loss of (x, y with the last positions -1) against loss of the prefix."""
    model = _zeroed_model(session)
    keep = 7
    idx, targets = tokens((B, T), seed=53), _real_targets((B, T), seed=54)
    padded = targets.clone()
    padded[:, keep:] = -1
    with torch.no_grad():
        _, full = forward(model, idx, padded)
        _, prefix = forward(model, idx[:, :keep].contiguous(), targets[:, :keep].contiguous())
    return {"padded": float(full), "prefix": float(prefix)}


def loss_invariances(session):
    """All three loss properties; one failing measurement does not hide the others."""
    out = {}
    for name, func in (("alignment", target_alignment), ("sizes", sizes), ("padding", padding)):
        try:
            out[name] = func(session)
        except Exception as exc:
            out[name] = {"exception": describe(exc)}
    return out
