"""RMSNorm, the gated MLP and gradient flow, found by what modules do rather than what they are called.

- Norms: modules whose parameters are all vectors (a gain, no weight matrix) that map the residual
  stream (B, T, dim) to itself. At initialisation (unit gain) each must be x / sqrt(mean(x^2) + eps).
- The MLP: the shared finder (the outermost class of n_layers position-wise stream modules with a weight
  matrix); traced on one input, the projections it applies to that input are the gate and the value,
  and the input of its last projection must be silu(gate) * value.

Judge side: modules are found from the agent's module facts (lm_probes/modules.py) and records of calls;
the agent applies a module to the judge's inputs and returns what came out (and, for the gate, the
torch calls it made); every comparison is here.
"""

import torch
import torch.nn.functional as F
from lm_probes.loading import tokens
from lm_probes.modules import Refused, call_chains, module_table, read_result
from lm_probes.structure_probes import find_mlps
from lm_probes.tracing import MATMUL, traced_modules

from .loading import DIM, build_llama

B, T, EPS = 2, 12, 1e-5
_silu = F.silu


def _stream_norms(model):
    """Submodules with parameters, every one of them a vector of size DIM, outermost only (from the
    agent's module facts and the parameters' shapes)."""
    modules = module_table(model)
    shapes = {name: tuple(p.shape) for name, p in model.named_parameters()}
    found = [m for m in modules[1:] if m.params and all(shapes.get(n) == (DIM,) for n in m.params)]
    inner = {d for m in found for d in m.descendants}
    return [m for m in found if m.number not in inner]


def _rms_expected(x):
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + EPS)


def _relative(a, b):
    return float((a - b).abs().max() / (b.abs().max() + 1e-300))


def norms(session):
    """Each norm module at its initial gain against x / sqrt(mean(x^2) + eps) on rows of ordinary size
    with a large mean, on tiny rows (where eps matters) and on an all-zero row (must stay finite)."""
    model = build_llama(session)
    g = torch.Generator().manual_seed(110)
    big = 3.0 * torch.randn(B, T, DIM, generator=g, dtype=torch.float64) + 2.0
    tiny = 1e-3 * torch.randn(B, T, DIM, generator=g, dtype=torch.float64)
    zero = big.clone()
    zero[:, 3] = 0.0
    results = []
    for module in _stream_norms(model):
        outs = [read_result(r) for r in call_chains(model, [([module], x) for x in (big, tiny, zero)])]
        if any(isinstance(y, Refused) for y in outs):  # wants other arguments: not a norm of the stream
            continue
        if not all(isinstance(y, torch.Tensor) and y.shape == big.shape for y in outs):
            continue
        y_big, y_tiny, y_zero = (y.double() for y in outs)
        rms = y_big.pow(2).mean(dim=-1).sqrt()
        results.append({"big_diff": _relative(y_big, _rms_expected(big)),
                        "tiny_diff": _relative(y_tiny, _rms_expected(tiny)),
                        "zero_finite": bool(torch.isfinite(y_zero).all()),
                        "rms_min": float(rms.min()), "rms_max": float(rms.max())})
    if not results:
        return {"applicable": False}
    worst = {key: max(r[key] for r in results) for key in ("big_diff", "tiny_diff", "rms_max")}
    return {"applicable": True, "modules": len(results), **worst, "rms_min": min(r["rms_min"] for r in results),
            "zero_finite": all(r["zero_finite"] for r in results)}


def _input(trace, x):
    """The trace's own tensor for the judge's input x: computed by no recorded call, equal to x."""
    for call in trace.calls:
        for t in call.inputs:
            if trace.producer(t) is None and t.shape == x.shape and t.device.type != "meta" and torch.equal(t, x):
                return t
    return None


def _projections(trace, x):
    """Matrix products applied to x itself, and the last matrix product of the call."""
    x = _input(trace, x)
    products = [c for c in trace.calls if (c.name == "linear" or c.name in MATMUL) and c.inputs and c.outputs]
    up = [c.outputs[0] for c in products if x is not None and c.inputs[0] is x]
    return up, (products[-1] if products else None)


def gate(session):
    """In each MLP, the input of the last projection against silu(gate) * value of the projections of the
    MLP's input (either one as the gate; a fused projection is split in halves)."""
    model = build_llama(session)
    mlps = find_mlps(model, tokens((B, T), seed=111))
    if mlps is None:
        return {"applicable": False}
    x = torch.randn(B, T, DIM, generator=torch.Generator().manual_seed(112), dtype=torch.float64)
    worst = 0.0
    for mlp in mlps:
        up, last = _projections(traced_modules(model, mlp, x), x)
        if len(up) == 1 and up[0].size(-1) % 2 == 0:
            up = list(up[0].chunk(2, dim=-1))
        if len(up) != 2 or last is None or any(last.inputs[0] is u for u in up):
            return {"applicable": False}
        h = last.inputs[0].detach().double()
        a, b = (u.detach().double() for u in up)
        if h.shape != a.shape or a.shape != b.shape:
            return {"applicable": False}
        worst = max(worst, min(_relative(h, _silu(a) * b), _relative(h, _silu(b) * a)))
    return {"applicable": True, "mlps": len(mlps), "diff": worst}


def parameter_gradients(session):
    """Trainable parameters whose gradient is missing or zero after one backward pass. Every parameter
    is first moved off its initial value (as training would), so a zero-initialised layer does not
    starve the others of gradient. The agent returns the gradients; the judge reads which are zero."""
    model = build_llama(session)
    g = torch.Generator().manual_seed(113)
    with torch.no_grad():
        for p in model.parameters():
            if p.requires_grad:
                p.add_(0.05 * torch.randn(p.shape, generator=g, dtype=p.dtype))
    grads = model.grads(tokens((3, T), seed=114), tokens((3, T), seed=115))["grads"]
    starved = [name for name, p in model.named_parameters()
               if p.requires_grad and (name not in grads or not bool(grads[name].abs().max() > 0))]
    return {"parameters": sum(1 for p in model.parameters() if p.requires_grad), "starved": starved[:10],
            "n_starved": len(starved)}
