"""Probes that look inside the model: attention probabilities and scores, block residuals, the MLP.

Each applies only when the model has the expected structure (nanoGPT names, or softmax calls the
recorder can see); otherwise it reports {"applicable": False} and the check says "not applicable".
"""

import math

import torch
import torch.nn.functional as F

from .loading import build_model, forward, tokens

# Bound before any candidate code is imported, so a candidate cannot swap them out.
_torch_softmax = torch.softmax
_functional_softmax = F.softmax
_tensor_softmax = torch.Tensor.softmax
_sdpa = F.scaled_dot_product_attention

BLOCK, C = 12, 48


class SoftmaxRecorder:
    """Context manager that records (input, output) of every softmax over a (..., T, T) tensor."""

    def __init__(self, size):
        self.size = size
        self.calls = []
        self._inside = False  # F.softmax calls Tensor.softmax: record the outer call only

    def _wrap(self, real):
        def softmax(x, *args, **kwargs):
            if self._inside:
                return real(x, *args, **kwargs)
            self._inside = True
            try:
                out = real(x, *args, **kwargs)
            finally:
                self._inside = False
            if isinstance(x, torch.Tensor) and x.dim() >= 2 and tuple(x.shape[-2:]) == (self.size, self.size):
                self.calls.append((x.detach().double().clone(), out.detach().double().clone()))
            return out
        return softmax

    def __enter__(self):
        torch.softmax = self._wrap(_torch_softmax)
        F.softmax = self._wrap(_functional_softmax)
        torch.Tensor.softmax = self._wrap(_tensor_softmax)
        return self

    def __exit__(self, *exc):
        torch.softmax = _torch_softmax
        F.softmax = _functional_softmax
        torch.Tensor.softmax = _tensor_softmax
        return False


def _blocks(model):
    h = getattr(getattr(model, "transformer", None), "h", None)
    return list(h) if isinstance(h, torch.nn.ModuleList) else []


def _call(module, *args):
    """module(*args), or None when it wants other arguments (a different design, not a bug)."""
    try:
        return module(*args)
    except TypeError:
        return None


def _nanogpt_attention(block):
    """The block's attention module if it has c_attn (C -> 3C), c_proj (C -> C) and n_head."""
    attn = getattr(block, "attn", None)
    c_attn, c_proj = getattr(attn, "c_attn", None), getattr(attn, "c_proj", None)
    if not (isinstance(c_attn, torch.nn.Linear) and isinstance(c_proj, torch.nn.Linear)
            and isinstance(getattr(attn, "n_head", None), int)):
        return None
    if c_attn.in_features != C or c_attn.out_features != 3 * C or c_proj.in_features != C:
        return None
    return attn


def attention_rows(mods):
    """Every captured attention matrix of a forward pass: worst |row sum - 1| and largest
    probability above the diagonal."""
    model = build_model(mods["model"])
    with SoftmaxRecorder(BLOCK) as rec, torch.no_grad():
        forward(model, tokens((2, BLOCK), seed=40))
    if not rec.calls:
        return {"applicable": False}
    future = torch.ones(BLOCK, BLOCK, dtype=torch.bool).triu(1)
    row_error, above = 0.0, 0.0
    for _, probs in rec.calls:
        row_error = max(row_error, float((probs.sum(dim=-1) - 1.0).abs().max()))
        above = max(above, float(probs[..., future].abs().max()))
    return {"applicable": True, "matrices": len(rec.calls), "row_error": row_error, "above_diagonal": above}


def _reference_scores(attn, x):
    """q k^T / sqrt(head size) per head, from the module's own c_attn."""
    n_head = attn.n_head
    q, k, _ = attn.c_attn(x).split(C, dim=2)
    B, T, hs = x.size(0), x.size(1), C // n_head
    q = q.view(B, T, n_head, hs).transpose(1, 2)
    k = k.view(B, T, n_head, hs).transpose(1, 2)
    return (q @ k.transpose(-2, -1)) / math.sqrt(hs)


def _reference_output(attn, x):
    n_head = attn.n_head
    q, k, v = attn.c_attn(x).split(C, dim=2)
    B, T, hs = x.size(0), x.size(1), C // n_head
    q, k, v = (t.view(B, T, n_head, hs).transpose(1, 2) for t in (q, k, v))
    y = _sdpa(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
    return attn.c_proj(y)


def _relative_lower(scores, ref):
    """Largest difference on and below the diagonal after removing each row's constant offset
    (softmax ignores it), relative to the reference's size."""
    lower = torch.ones(BLOCK, BLOCK, dtype=torch.bool).tril()
    a = scores - scores[..., :1]
    b = ref - ref[..., :1]
    return float((a - b)[..., lower].abs().max() / (1.0 + b[..., lower].abs().max()))


def attention_scale(mods):
    """For nanoGPT-shaped attention modules: the scores handed to softmax against q k^T / sqrt(hs)
    from the module's own weights; with no softmax call seen, the module output against
    scaled_dot_product_attention of its own projections."""
    model = build_model(mods["model"])
    modules = [a for a in (_nanogpt_attention(b) for b in _blocks(model)) if a is not None]
    if not modules:
        return {"applicable": False}
    x = torch.randn(2, BLOCK, C, generator=torch.Generator().manual_seed(41), dtype=torch.float64)
    score_diff, output_diff = [], []
    with torch.no_grad():
        for attn in modules:
            ref = _reference_scores(attn, x)
            with SoftmaxRecorder(BLOCK) as rec:
                out = _call(attn, x)
            scores = [s for s, _ in rec.calls]
            if len(scores) == attn.n_head and all(s.shape == ref[:, 0].shape for s in scores):
                scores = [torch.stack(scores, dim=1)]  # one softmax call per head
            scores = [s for s in scores if s.shape == ref.shape]
            if scores:
                score_diff.append(max(_relative_lower(s, ref) for s in scores))
            elif not rec.calls and isinstance(out, torch.Tensor) and out.shape == x.shape:
                ref_out = _reference_output(attn, x)
                output_diff.append(float((out - ref_out).abs().max() / (1.0 + ref_out.abs().max())))
    if not score_diff and not output_diff:
        return {"applicable": False}
    return {"applicable": True, "score_diff": max(score_diff, default=None),
            "output_diff": max(output_diff, default=None)}


def block_identity(mods):
    """With every block's attn.c_proj and mlp.c_proj zeroed, each block must return its input."""
    model = build_model(mods["model"])
    blocks = _blocks(model)
    projections = []
    for block in blocks:
        pair = [getattr(getattr(block, part, None), "c_proj", None) for part in ("attn", "mlp")]
        if not all(isinstance(p, torch.nn.Linear) for p in pair):
            return {"applicable": False}
        projections.extend(pair)
    if not blocks:
        return {"applicable": False}
    x = torch.randn(2, BLOCK, C, generator=torch.Generator().manual_seed(42), dtype=torch.float64)
    with torch.no_grad():
        for p in projections:
            p.weight.zero_()
            if p.bias is not None:
                p.bias.zero_()
        outputs = [_call(block, x) for block in blocks]
    if not all(isinstance(y, torch.Tensor) and y.shape == x.shape for y in outputs):
        return {"applicable": False}
    worst = max(float((y - x).abs().max()) for y in outputs)
    return {"applicable": True, "max_change": worst, "scale": float(x.abs().max())}


def mlp_nonlinearity(mods):
    """|mlp(a + b) - mlp(a) - mlp(b) + mlp(0)| for every block's mlp: zero for an affine map."""
    model = build_model(mods["model"])
    mlps = [getattr(b, "mlp", None) for b in _blocks(model)]
    if not mlps or not all(isinstance(m, torch.nn.Module) for m in mlps):
        return {"applicable": False}
    g = torch.Generator().manual_seed(43)
    a = torch.randn(2, BLOCK, C, generator=g, dtype=torch.float64)
    b = torch.randn(2, BLOCK, C, generator=g, dtype=torch.float64)
    nonlinear, scale = [], 0.0
    with torch.no_grad():
        for mlp in mlps:
            ys = [_call(mlp, z) for z in (a, b, a + b, torch.zeros_like(a))]
            if not all(isinstance(y, torch.Tensor) and y.shape == a.shape for y in ys):
                return {"applicable": False}
            ya, yb, yab, y0 = ys
            nonlinear.append(float((yab - ya - yb + y0).abs().max()))
            scale = max(scale, float(yab.abs().max()), float(ya.abs().max()), float(yb.abs().max()))
    return {"applicable": True, "nonlinear": min(nonlinear), "scale": scale}
