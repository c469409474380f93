"""Probes on the model's forward pass: shapes, loss, positions, causality, batch independence."""

import re

import torch
import torch.nn as nn

from .errors import describe
from .loading import build_model, forward, tokens
from .optim import AdamW
from .weights import fill_reference_weights, signature

# Bound before any candidate code is imported, so a candidate cannot swap them out.
_log_softmax = torch.log_softmax
_randint = torch.randint

V, BLOCK = 37, 12
POSITIONAL_NAME = re.compile(r"wpe|pos", re.IGNORECASE)


def _max_abs(a, b):
    return float((a - b).abs().max()) if a.numel() else 0.0


def _cross_entropy(logits, targets):
    """Mean next-token cross-entropy over targets != -1, computed by the harness itself."""
    logp = _log_softmax(logits.reshape(-1, logits.size(-1)).double(), dim=-1)
    flat = targets.reshape(-1)
    keep = flat != -1
    return float(-logp[keep].gather(1, flat[keep].unsqueeze(1)).mean())


def forward_shapes(mods):
    """Logits shape and finiteness for several (B, T) including T = 1 and T = block_size."""
    model = build_model(mods["model"])
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
            case["exception"] = describe(exc, mods.get("_dir"))
        cases.append(case)
    return {"cases": cases, "vocab_size": V}


def loss_consistency(mods):
    """The model's loss against cross-entropy of its own logits, with and without -1 targets."""
    model = build_model(mods["model"])
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


def init_loss(mods):
    """Loss at initialisation on random tokens and targets (should be near ln V)."""
    model = build_model(mods["model"], dtype=torch.float32)
    with torch.no_grad():
        _, loss = forward(model, tokens((8, BLOCK), seed=4), tokens((8, BLOCK), seed=5))
    return {"loss": float(loss), "vocab_size": V}


def positional_gradient(mods):
    """Positional parameters (by name) must train; positional buffers must not be all zeros."""
    model = build_model(mods["model"])
    _, loss = forward(model, tokens((3, BLOCK), seed=6), tokens((3, BLOCK), seed=7))
    loss.backward()
    params = []
    for name, p in model.named_parameters():
        if POSITIONAL_NAME.search(name):
            grad = 0.0 if p.grad is None else float(p.grad.abs().max())
            params.append({"name": name, "requires_grad": p.requires_grad, "grad": grad,
                           "norm": float(p.detach().abs().max())})
    buffers = []
    for name, b in model.named_buffers():
        if POSITIONAL_NAME.search(name) and b.is_floating_point():
            buffers.append({"name": name, "norm": float(b.abs().max())})
    return {"params": params, "buffers": buffers}


def order_dependence(mods):
    """In a one-layer model, the prediction at t of a model without position information depends only
    on the multiset of tokens 0..t (the attention sums over them). So swapping two earlier tokens must
    change it, whether positions come from a table, a formula or relative offsets. Every trainable
    parameter is first moved off its initial value, as training would: a learnable table that starts at
    zero is position information, a frozen zero table is not."""
    model = build_model(mods["model"], n_layer=1)
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


def causality_perturb(mods):
    """PERTURB at every position with the model's own initialisation."""
    return _perturb_violations(build_model(mods["model"]), tokens((3, BLOCK), seed=9))


def causality_extreme(mods):
    """PERTURB with every weight matrix scaled up: attention scores become huge, so a finite
    mask fill value no longer hides the future."""
    model = build_model(mods["model"])
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.mul_(1000.0)
    return _perturb_violations(model, tokens((3, BLOCK), seed=9))


def causality_gradient(mods):
    """JAC: gradient of logits[b, t] w.r.t. the token-embedding output at other items/later positions."""
    model = build_model(mods["model"])
    captured = []

    def keep(module, inputs, output):
        output.retain_grad()
        captured.append(output)

    hooks = [m.register_forward_hook(keep) for m in model.modules()
             if isinstance(m, nn.Embedding) and m.num_embeddings == V]
    if not hooks:
        return {"applicable": False}
    idx = tokens((3, BLOCK), seed=11)
    logits, _ = forward(model, idx)
    for h in hooks:
        h.remove()
    emb = [c for c in captured if c.dim() == 3 and c.shape[:2] == idx.shape]
    if not emb:
        return {"applicable": False}
    emb = emb[0]
    future, cross = 0.0, 0.0
    B, T = idx.shape
    for b in range(B):
        for t in range(T):
            if emb.grad is not None:
                emb.grad = None
            logits[b, t].sum().backward(retain_graph=True)
            grad = emb.grad if emb.grad is not None else torch.zeros_like(emb)
            future = max(future, float(grad[b, t + 1:].abs().max()) if t + 1 < T else 0.0)
            others = torch.cat([grad[:b], grad[b + 1:]])
            cross = max(cross, float(others.abs().max()) if others.numel() else 0.0)
    return {"applicable": True, "future": future, "cross_batch": cross}


def batch_independence(mods):
    """model(x[:1]) == model(x)[:1], and changing other batch items leaves item 0 unchanged."""
    model = build_model(mods["model"])
    idx = tokens((3, BLOCK), seed=12)
    with torch.no_grad():
        full, _ = forward(model, idx)
        single, _ = forward(model, idx[:1])
        other = idx.clone()
        other[1:] = tokens((2, BLOCK), seed=13)
        changed, _ = forward(model, other)
    return {"slice_diff": _max_abs(single[0], full[0]), "perturb_diff": _max_abs(changed[0], full[0]),
            "scale": float(full.abs().max())}


def eval_determinism(mods):
    """With dropout configured, two eval-mode forwards must be identical."""
    model = build_model(mods["model"], dropout=0.3)
    idx = tokens((3, BLOCK), seed=14)
    with torch.no_grad():
        a, _ = forward(model, idx)
        b, _ = forward(model, idx)
    return {"equal": bool(torch.equal(a, b)), "diff": _max_abs(a, b)}


def equivalence(mods):
    """Logits under the name-seeded reference weights: full (2 layers) and last position (1 layer)."""
    out = {}
    for key, n_layer in (("full", 2), ("last", 1)):
        model = build_model(mods["model"], n_layer=n_layer)
        fill_reference_weights(model)
        idx = tokens((3, BLOCK), seed=15)
        with torch.no_grad():
            logits, _ = forward(model, idx)
        values = logits if key == "full" else logits[:, -1]
        out[key] = {"signature": signature(model), "logits": [round(float(v), 12) for v in values.flatten()]}
    return out


def overfit_one_batch(mods, steps=80, lr=1e-2):
    """Train on one fixed batch; the loss should fall close to zero."""
    model = build_model(mods["model"], dtype=torch.float32, seed=0, train=True)
    opt = AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    x, y = tokens((4, BLOCK), seed=16), tokens((4, BLOCK), seed=17)
    first = None
    for _ in range(steps):
        _, loss = forward(model, x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        first = float(loss.detach()) if first is None else first
    model.eval()
    with torch.no_grad():
        _, loss = forward(model, x, y)
    return {"initial": first, "final": float(loss)}



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
