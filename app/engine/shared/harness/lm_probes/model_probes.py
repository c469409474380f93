"""Probes on the model's forward pass: shapes, loss, token order, causality, batch independence.

Judge side: each probe asks the agent for raw logits, losses or gradients on inputs chosen here and
computes its measurements from them (the candidate's code never runs in this process).
"""

import torch
from dojo_kit.remote import tensor

from .errors import describe
from .loading import build_model, forward, tokens
from .weights import fill_reference_weights, signature

_log_softmax = torch.log_softmax
_randint = torch.randint

V, BLOCK = 37, 12


def _max_abs(a, b):
    return float((a - b).abs().max()) if a.numel() else 0.0


def _cross_entropy(logits, targets):
    """Mean next-token cross-entropy over targets != -1, computed by the harness itself."""
    logp = _log_softmax(logits.reshape(-1, logits.size(-1)).double(), dim=-1)
    flat = targets.reshape(-1)
    keep = flat != -1
    return float(-logp[keep].gather(1, flat[keep].unsqueeze(1)).mean())


def forward_shapes(session):
    """Logits shape and finiteness for several (B, T) including T = 1 and T = block_size."""
    model = build_model(session)
    cases = []
    for b, t in [(1, 1), (3, BLOCK), (2, 5), (4, 7)]:
        case = {"B": b, "T": t}
        try:
            idx = tokens((b, t), seed=10 + t)
            with torch.no_grad():
                logits, loss = forward(model, idx)
                _, loss_t = forward(model, idx, tokens((b, t), seed=20 + t))
            case["shape"] = list(logits.shape)
            case["finite"] = bool(torch.isfinite(logits).all())
            case["loss_none"] = loss is None
            case["loss_finite"] = loss_t is not None and bool(torch.isfinite(loss_t).all())
        except Exception as exc:  # record per case so one bad shape does not hide the others
            case["exception"] = describe(exc)
        cases.append(case)
    return {"cases": cases, "vocab_size": V}


def loss_consistency(session):
    """The model's loss against cross-entropy of its own logits, with and without -1 targets."""
    model = build_model(session)
    idx = tokens((3, BLOCK), seed=2)
    targets = tokens((3, BLOCK), seed=3)
    ignored = targets.clone()
    ignored[0, :5] = -1
    ignored[2, 7:] = -1
    with torch.no_grad():
        logits, loss = forward(model, idx, targets)
        logits_i, loss_i = forward(model, idx, ignored)
    return {
        "loss": None if loss is None else float(loss),
        "expected": _cross_entropy(logits, targets),
        "loss_ignored": None if loss_i is None else float(loss_i),
        "expected_ignored": _cross_entropy(logits_i, ignored),
    }


def init_loss(session):
    """Loss at initialisation on random tokens and targets (should be near ln V): the loss the model
    returns, next to the cross-entropy of its logits computed here."""
    model = build_model(session, dtype=torch.float32)
    targets = tokens((8, BLOCK), seed=5)
    logits, loss = forward(model, tokens((8, BLOCK), seed=4), targets)
    return {"loss": float(loss), "cross_entropy": _cross_entropy(logits, targets), "vocab_size": V}


def order_dependence(session):
    """In a one-layer model, the prediction at t of a model without position information depends only
    on the multiset of tokens 0..t (the attention sums over them). So swapping two earlier tokens must
    change it, whether positions come from a table, a formula or relative offsets. Every trainable
    parameter is first moved off its initial value, as training would: a learnable table that starts at
    zero is position information, a frozen zero table is not."""
    model = build_model(session, n_layer=1)
    g = torch.Generator().manual_seed(46)
    with torch.no_grad():
        for p in model.parameters():
            if p.requires_grad:
                p.add_(0.1 * torch.randn(p.shape, generator=g, dtype=p.dtype))
        idx = tokens((2, BLOCK), seed=47)
        idx[:, 1] = (idx[:, 0] + 1) % V  # the swapped tokens differ
        idx[:, 6] = (idx[:, 3] + 2) % V
        base, _ = forward(model, idx)
        diff = 0.0
        for i, j in ((0, 1), (3, 6)):
            other = idx.clone()
            other[:, [i, j]] = idx[:, [j, i]]
            logits, _ = forward(model, other)
            diff = max(diff, _max_abs(logits[:, j + 1:], base[:, j + 1:]))
    return {"diff": diff, "scale": float(base.abs().max())}


def _perturb_violations(model, idx):
    """For each t, max change of logits[:, :t+1] when tokens after t are randomised."""
    g = torch.Generator().manual_seed(8)
    with torch.no_grad():
        base, _ = forward(model, idx)
        scale = float(base.abs().max())
        worst = []
        for t in range(idx.size(1) - 1):
            other = idx.clone()
            other[:, t + 1:] = _randint(0, V, other[:, t + 1:].shape, generator=g)
            logits, _ = forward(model, other)
            worst.append(_max_abs(logits[:, : t + 1], base[:, : t + 1]))
    return {"violations": worst, "scale": scale}


def causality_perturb(session):
    """PERTURB at every position with the model's own initialisation."""
    return _perturb_violations(build_model(session), tokens((3, BLOCK), seed=9))


def causality_extreme(session):
    """PERTURB with every weight matrix scaled up: attention scores become huge, so a finite
    mask fill value no longer hides the future."""
    model = build_model(session)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.mul_(1000.0)
    return _perturb_violations(model, tokens((3, BLOCK), seed=9))


def causality_gradient(session):
    """JAC: the agent returns d logits[b, t].sum() / d (token-embedding output) for every (b, t) (the
    output of the nn.Embedding with V rows, seen by a hook); the judge reads how much of that gradient
    reaches later positions of the same item or other items."""
    model = build_model(session)
    model.sync()
    idx = tokens((3, BLOCK), seed=11)
    out = session.call("embedding_jacobian", handle=model.handle, tokens=idx, vocab_size=V)
    if not out.get("applicable"):
        return {"applicable": False}
    jac = tensor(out.get("jacobian"), "the embedding Jacobian")
    B, T = idx.shape
    if jac.dim() != 5 or tuple(jac.shape[:4]) != (B, T, B, T):
        return {"applicable": False}
    future, cross = 0.0, 0.0
    for b in range(B):
        for t in range(T):
            grad = jac[b, t]
            future = max(future, float(grad[b, t + 1:].abs().max()) if t + 1 < T else 0.0)
            others = torch.cat([grad[:b], grad[b + 1:]])
            cross = max(cross, float(others.abs().max()) if others.numel() else 0.0)
    return {"applicable": True, "future": future, "cross_batch": cross}


def batch_independence(session):
    """model(x[:1]) == model(x)[:1], and changing other batch items leaves item 0 unchanged."""
    model = build_model(session)
    idx = tokens((3, BLOCK), seed=12)
    with torch.no_grad():
        full, _ = forward(model, idx)
        single, _ = forward(model, idx[:1])
        other = idx.clone()
        other[1:] = tokens((2, BLOCK), seed=13)
        changed, _ = forward(model, other)
    return {"slice_diff": _max_abs(single[0], full[0]), "perturb_diff": _max_abs(changed[0], full[0]),
            "scale": float(full.abs().max())}


def eval_determinism(session):
    """With dropout configured, two eval-mode forwards must be identical."""
    model = build_model(session, dropout=0.3)
    idx = tokens((3, BLOCK), seed=14)
    with torch.no_grad():
        a, _ = forward(model, idx)
        b, _ = forward(model, idx)
    return {"equal": bool(torch.equal(a, b)), "diff": _max_abs(a, b)}


def equivalence(session):
    """Logits under the name-seeded reference weights: full (2 layers) and last position (1 layer)."""
    out = {}
    for key, n_layer in (("full", 2), ("last", 1)):
        model = build_model(session, n_layer=n_layer)
        fill_reference_weights(model)
        idx = tokens((3, BLOCK), seed=15)
        with torch.no_grad():
            logits, _ = forward(model, idx)
        values = logits if key == "full" else logits[:, -1]
        out[key] = {"signature": signature(model), "logits": [round(float(v), 12) for v in values.flatten()]}
    return out


def overfit_one_batch(session, steps=80, lr=1e-2):
    """Train on one fixed batch (the agent runs the harness's own AdamW loop on the candidate's model);
    the loss should fall close to zero. Both losses are the judge's cross-entropy of the model's logits
    in eval mode, before and after, so a loop that reports made-up losses changes nothing."""
    model = build_model(session, dtype=torch.float32, seed=0, train=True)
    x, y = tokens((4, BLOCK), seed=16), tokens((4, BLOCK), seed=17)
    model.eval()
    logits, _ = forward(model, x, y)
    initial = _cross_entropy(logits, y)
    model.train()
    model.sync()
    session.call("fit_batch", handle=model.handle, x=x, y=y, steps=steps, lr=lr)
    model.eval()
    logits, _ = forward(model, x, y)
    return {"initial": initial, "final": _cross_entropy(logits, y)}


def influence_matrix(model, window, chars):
    """|change of logits at t| when only token s changes, for a text window (for display: a causal
    model gives a lower-triangular picture)."""
    model.eval()
    idx = window.view(1, -1)
    vocab = len(chars)
    with torch.no_grad():
        base, _ = forward(model, idx)
        if base.dim() != 3 or base.size(1) != idx.size(1):
            raise ValueError("the logits do not cover every position")
        rows = []
        for s in range(idx.size(1)):
            other = idx.clone()
            other[0, s] = (other[0, s] + 1) % vocab
            logits, _ = forward(model, other)
            rows.append([round(float(v), 5) for v in (logits[0] - base[0]).abs().amax(dim=-1)])
    return {"text": "".join(chars[int(i)] for i in window), "matrix": rows}
