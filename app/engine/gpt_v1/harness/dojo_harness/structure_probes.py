"""Blocks, MLPs and the final normalisation, found by what modules do rather than what they are called.

- Blocks: n_layer instances of one module class, each called once per forward on the residual stream
  (B, T, C) -> (B, T, C), chained: each block's input is the previous block's output.
- MLPs: n_layer instances of one class with a weight matrix that map (B, T, C) -> (B, T, C) position
  by position (changing one position's input changes only that position's output). Failing that, the
  same thing found inside each block by its place there: one submodule (an nn.Sequential, when the
  model uses nn.Sequential elsewhere too), or a chain of layers each called on the previous one's
  output, from the stream out to a hidden width and back (minGPT's nn.ModuleDict of layers, which a
  lambda calls: the ModuleDict itself is never called).
- The output layer: the linear map or matmul that produced the returned logits.
Each probe reports {"applicable": False} when it cannot find what it measures.
"""

import torch

from .attention_probes import traced_forward
from .loading import build_model, forward, tokens
from .tracing import REARRANGE

BLOCK, C, N_LAYER = 12, 48, 2


def _first_tensor(args, kwargs):
    for value in [*args, *kwargs.values()]:
        if isinstance(value, torch.Tensor):
            return value
    return None


def _stream(t):
    return isinstance(t, torch.Tensor) and t.dim() == 3 and t.shape[1:] == (BLOCK, C)


def module_calls(model, idx):
    """[(module, input, output)] for every submodule call of one forward, in the order they finish.

    Each submodule's forward is wrapped on the instance rather than hooked: code that calls
    `self.feed_forward.forward(x)` (llama2.c does) runs no module hooks, but it does run the wrapper."""
    calls = []
    wrapped = [m for m in model.modules() if m is not model]
    saved = [m.__dict__.get("forward") for m in wrapped]

    def recording(module, inner):
        def forward_and_record(*args, **kwargs):
            output = inner(*args, **kwargs)
            calls.append((module, _first_tensor(args, kwargs), output))
            return output
        return forward_and_record

    for m in wrapped:
        m.forward = recording(m, m.forward)
    try:
        with torch.no_grad():
            forward(model, idx)
    finally:
        for m, own in zip(wrapped, saved, strict=True):
            if own is None:
                del m.forward  # the class's forward again
            else:
                m.forward = own
    return calls


def _stream_classes(calls):
    """Module classes with exactly N_LAYER instances, each called once, all on the residual stream."""
    by_class = {}
    for module, x, y in calls:
        by_class.setdefault(type(module), []).append((module, x, y))
    return {cls: entries for cls, entries in by_class.items()
            if len(entries) == N_LAYER and len({id(m) for m, _, _ in entries}) == N_LAYER
            and all(_stream(x) and _stream(y) for _, x, y in entries)}


def find_blocks(model, idx, calls=None):
    """[(block, input, output)] of the one chained class of stream modules, or None."""
    calls = module_calls(model, idx) if calls is None else calls
    chained = [entries for entries in _stream_classes(calls).values()
               if all(torch.equal(entries[i + 1][1], entries[i][2]) for i in range(N_LAYER - 1))]
    return chained[0] if len(chained) == 1 else None


def block_identity(mods):
    """With every parameter of every block zeroed (silent sublayers), each block must return its input.
    Blocks that normalise their own output (post-LN) are another design: not applicable."""
    model = build_model(mods["model"])
    idx = tokens((2, BLOCK), seed=42)
    blocks = find_blocks(model, idx)
    if blocks is None:
        return {"applicable": False}
    post_norm = all(float(y.mean(dim=-1).abs().max()) <= 1e-9 * float(y.abs().max()) for _, _, y in blocks)
    if post_norm:
        return {"applicable": False, "post_norm": True}
    with torch.no_grad():
        for block, _, _ in blocks:
            for p in block.parameters():
                p.zero_()
    chosen = {id(block) for block, _, _ in blocks}
    silent = [entry for entry in module_calls(model, idx) if id(entry[0]) in chosen]
    if len(silent) != len(blocks) or not all(_stream(y) for _, _, y in silent):
        return {"applicable": False}
    worst = max(float((y - x).abs().max()) for _, x, y in silent)
    return {"applicable": True, "blocks": len(silent), "max_change": worst,
            "scale": max(float(x.abs().max()) for _, x, _ in silent)}


def _call(module, x):
    """module(x), or None when it wants other arguments (a different design, not a bug)."""
    try:
        y = module(x)
    except TypeError:
        return None
    return y if isinstance(y, torch.Tensor) and y.shape == x.shape else None


def _position_wise(module, x):
    """True when changing the first or the last position's input changes only that position's output."""
    y = _call(module, x)
    if y is None:
        return False
    for t in (0, BLOCK - 1):
        other = x.clone()
        other[:, t] += 1.0
        changed = _call(module, other)
        if changed is None:
            return False
        rest = [s for s in range(BLOCK) if s != t]
        if not torch.equal(changed[:, rest], y[:, rest]) or torch.equal(changed[:, t], y[:, t]):
            return False
    return True


def _has_matrix(module):
    return any(p.dim() >= 2 for p in module.parameters())


class _Chain:
    """Layers applied one after another: an MLP that a function, not a module, composes."""

    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def _hidden(t):
    """(B, T, H) with H other than the stream's width: an MLP's hidden activations."""
    return isinstance(t, torch.Tensor) and t.dim() == 3 and t.shape[1] == BLOCK and t.size(-1) != C


def _chains(calls):
    """Runs of leaf-module calls, each fed the previous one's output (the very tensor), that go from the
    stream to a hidden width and back to the stream: [(call index, ...)]."""
    found = []
    for i, (_, x, y) in enumerate(calls):
        if not (_stream(x) and _hidden(y)):
            continue
        run = [i]
        for j in range(i + 1, len(calls)):
            if calls[j][1] is not calls[run[-1]][2]:
                break
            run.append(j)
            if _stream(calls[j][2]):
                found.append(tuple(run))
                break
            if not _hidden(calls[j][2]):
                break
    return found


def _mlps_in_blocks(model, idx, calls, x):
    """Each block's MLP, found at the same place in every block: the outermost submodule called once
    that maps the stream position by position with a weight matrix and has a part that widens it to a
    hidden width, else the one chain of layers from the stream to a hidden width and back (_chains).
    A list of callables, or None."""
    blocks = find_blocks(model, idx, calls)
    if blocks is None:
        return None
    names = [{id(m): name for name, m in block.named_modules() if m is not block} for block, _, _ in blocks]
    per_block = [[(name[id(m)], m, a, b) for m, a, b in calls if id(m) in name] for name in names]
    singles = []
    for own in per_block:
        counts: dict[str, int] = {}
        for rel, _, _, _ in own:
            counts[rel] = counts.get(rel, 0) + 1
        widened = {rel for rel, _, _, b in own if _hidden(b)}  # calls that produced a hidden width
        singles.append({rel: m for rel, m, a, b in own
                        if counts[rel] == 1 and _stream(a) and _stream(b) and _has_matrix(m)
                        and any(w.startswith(rel + ".") for w in widened)})
    shared = [rel for rel in singles[0] if all(rel in s for s in singles)
              and all(_position_wise(s[rel], x) for s in singles)]
    outer = [rel for rel in shared if not any(rel.startswith(other + ".") for other in shared)]
    if len(outer) == 1:
        return [s[outer[0]] for s in singles]
    mlps, places = [], set()
    for own in per_block:
        leaves = [(rel, m, a, b) for rel, m, a, b in own if next(m.children(), None) is None]
        chains = _chains([(m, a, b) for _, m, a, b in leaves])
        if len(chains) != 1:
            return None
        layers = [leaves[k][1] for k in chains[0]]
        if not any(_has_matrix(layer) for layer in layers):
            return None
        places.add(tuple(leaves[k][0] for k in chains[0]))
        mlps.append(_Chain(layers))
    if len(places) != 1 or not all(_position_wise(mlp, x) for mlp in mlps):
        return None
    return mlps


def find_mlps(model, idx):
    """The MLP of each block: the outermost class of position-wise stream modules with a weight matrix,
    else what _mlps_in_blocks finds inside the blocks. A list of callables, or None."""
    x = torch.randn(2, BLOCK, C, generator=torch.Generator().manual_seed(44), dtype=torch.float64)
    calls = module_calls(model, idx)
    found = []
    with torch.no_grad():
        for entries in _stream_classes(calls).values():
            modules = [m for m, _, _ in entries]
            if all(_has_matrix(m) and _position_wise(m, x) for m in modules):
                found.append(modules)
        inner = {id(d) for modules in found for m in modules for d in m.modules() if d is not m}
        outer = [modules for modules in found if not any(id(m) in inner for m in modules)]
        if len(outer) == 1:
            return outer[0]
        return _mlps_in_blocks(model, idx, calls, x) if not outer else None


def mlp_nonlinearity(mods):
    """|mlp(a + b) - mlp(a) - mlp(b) + mlp(0)| for every block's MLP: zero for an affine map."""
    model = build_model(mods["model"])
    mlps = find_mlps(model, tokens((2, BLOCK), seed=43))
    if mlps is None:
        return {"applicable": False}
    g = torch.Generator().manual_seed(43)
    a = torch.randn(2, BLOCK, C, generator=g, dtype=torch.float64)
    b = torch.randn(2, BLOCK, C, generator=g, dtype=torch.float64)
    nonlinear, scale = [], 0.0
    with torch.no_grad():
        for mlp in mlps:
            ya, yb, yab, y0 = (_call(mlp, z) for z in (a, b, a + b, torch.zeros_like(a)))
            if any(y is None for y in (ya, yb, yab, y0)):
                return {"applicable": False}
            nonlinear.append(float((yab - ya - yb + y0).abs().max()))
            scale = max(scale, float(yab.abs().max()), float(ya.abs().max()), float(yb.abs().max()))
    return {"applicable": True, "mlps": len(mlps), "nonlinear": min(nonlinear), "scale": scale}


def _output_features(trace, logits):
    """The (B, T', C) features that the output layer turned into these logits, or None."""
    for _ in range(8):
        call = trace.producer(logits)
        if call is None:
            return None
        if call.name in REARRANGE and call.args and isinstance(call.args[0], torch.Tensor):
            logits = call.args[0]
            continue
        if call.name in ("linear", "matmul", "__matmul__"):
            features = call.inputs[0]
            return features if features.dim() == 3 and features.size(-1) == C else None
        return None
    return None


def final_norm(mods):
    """Root-mean-square size of each position's features entering the output layer: equal at every
    position when a final normalisation precedes it (its gains start at one). Weight matrices are
    scaled up first so the normalisation's epsilon is negligible against the features' variance."""
    model = build_model(mods["model"])
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.mul_(10.0)
    trace = traced_forward(model, tokens((2, BLOCK), seed=45))
    features = _output_features(trace, trace.logits) if isinstance(trace.logits, torch.Tensor) else None
    if features is None:
        return {"applicable": False}
    rms = features.detach().double().pow(2).mean(dim=-1).sqrt()
    return {"applicable": True, "spread": float((rms.max() - rms.min()) / rms.mean())}
