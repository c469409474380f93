"""Blocks, MLPs and the final normalisation, found by what modules do rather than what they are called.

The agent reports raw facts (agent_structure.py: each module's names, class and parameters, the calls
one forward pass made to the modules with their input and output tensors, the outputs of chosen
modules on the judge's inputs); the finding and every measurement are made here, in the judge.

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
from dojo_kit.remote import ObservationError

from .loading import build_model, tokens
from .modules import Refused, call_chains, module_calls, read_result
from .tracing import REARRANGE, traced_forward

BLOCK, C, N_LAYER = 12, 48, 2


def _stream(t):
    return isinstance(t, torch.Tensor) and t.dim() == 3 and t.shape[1:] == (BLOCK, C)


def _stream_classes(calls):
    """Module classes with exactly N_LAYER instances, each called once, all on the residual stream."""
    by_class = {}
    for module, x, y in calls:
        by_class.setdefault(module.cls, []).append((module, x, y))
    return {cls: entries for cls, entries in by_class.items()
            if len(entries) == N_LAYER and len({m.number for m, _, _ in entries}) == N_LAYER
            and all(_stream(x) and _stream(y) for _, x, y in entries)}


def find_blocks(model, idx, calls=None):
    """[(block, input, output)] of the one chained class of stream modules, or None."""
    calls = module_calls(model, idx)[1] if calls is None else calls
    chained = [entries for entries in _stream_classes(calls).values()
               if all(torch.equal(entries[i + 1][1], entries[i][2]) for i in range(N_LAYER - 1))]
    return chained[0] if len(chained) == 1 else None


def block_identity(session):
    """With every parameter of every block zeroed (silent sublayers), each block must return its input.
    Blocks that normalise their own output (post-LN) are another design: not applicable."""
    model = build_model(session)
    idx = tokens((2, BLOCK), seed=42)
    blocks = find_blocks(model, idx)
    if blocks is None:
        return {"applicable": False}
    post_norm = all(float(y.mean(dim=-1).abs().max()) <= 1e-9 * float(y.abs().max()) for _, _, y in blocks)
    if post_norm:
        return {"applicable": False, "post_norm": True}
    params = dict(model.named_parameters())
    with torch.no_grad():
        for block, _, _ in blocks:
            for name in block.params:
                if name not in params:
                    raise ObservationError(f"a block names a parameter {name!r} the model does not have")
                params[name].zero_()
    chosen = {block.number for block, _, _ in blocks}
    silent = [entry for entry in module_calls(model, idx)[1] if entry[0].number in chosen]
    if len(silent) != len(blocks) or not all(_stream(y) for _, _, y in silent):
        return {"applicable": False}
    worst = max(float((y - x).abs().max()) for _, x, y in silent)
    return {"applicable": True, "blocks": len(silent), "max_change": worst,
            "scale": max(float(x.abs().max()) for _, x, _ in silent)}


def _shaped(result, x):
    """A module's output when it is a tensor shaped like its input, else None (a TypeError means it
    wants other arguments: a different design, not a bug)."""
    y = read_result(result)
    if isinstance(y, Refused):
        return None
    return y if isinstance(y, torch.Tensor) and y.shape == x.shape else None


def _calls(model, chain, inputs):
    """The chain of modules applied to each input (one request), as _shaped results."""
    results = call_chains(model, [(chain, z) for z in inputs])
    return [lambda r=r, z=z: _shaped(r, z) for r, z in zip(results, inputs, strict=True)]


def _position_wise(model, chain, x):
    """True when changing the first or the last position's input changes only that position's output."""
    others = []
    for t in (0, BLOCK - 1):
        other = x.clone()
        other[:, t] += 1.0
        others.append(other)
    base, *changed_at = _calls(model, chain, [x, *others])
    y = base()
    if y is None:
        return False
    for t, read in zip((0, BLOCK - 1), changed_at, strict=True):
        changed = read()
        if changed is None:
            return False
        rest = [s for s in range(BLOCK) if s != t]
        if not torch.equal(changed[:, rest], y[:, rest]) or torch.equal(changed[:, t], y[:, t]):
            return False
    return True


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
            previous = calls[run[-1]][2]
            if previous is None or calls[j][1] is not previous:  # None: it returned no tensor
                break
            run.append(j)
            if _stream(calls[j][2]):
                found.append(tuple(run))
                break
            if not _hidden(calls[j][2]):
                break
    return found


def _relative_names(block, modules):
    """{module number: its name inside the block} for the block's descendants."""
    prefix = block.name + "."
    out = {}
    for d in block.descendants:
        inside = [n[len(prefix):] for n in modules[d].names if n.startswith(prefix)]
        if inside:
            out[d] = inside[0]
    return out


def _mlps_in_blocks(model, idx, modules, calls, x):
    """Each block's MLP, found at the same place in every block: the outermost submodule called once
    that maps the stream position by position with a weight matrix and has a part that widens it to a
    hidden width, else the one chain of layers from the stream to a hidden width and back (_chains).
    A list of chains of modules, or None."""
    blocks = find_blocks(model, idx, calls)
    if blocks is None:
        return None
    names = [_relative_names(block, modules) for block, _, _ in blocks]
    per_block = [[(name[m.number], m, a, b) for m, a, b in calls if m.number in name] for name in names]
    singles = []
    for own in per_block:
        counts: dict[str, int] = {}
        for rel, _, _, _ in own:
            counts[rel] = counts.get(rel, 0) + 1
        widened = {rel for rel, _, _, b in own if _hidden(b)}  # calls that produced a hidden width
        singles.append({rel: m for rel, m, a, b in own
                        if counts[rel] == 1 and _stream(a) and _stream(b) and m.has_matrix
                        and any(w.startswith(rel + ".") for w in widened)})
    shared = [rel for rel in singles[0] if all(rel in s for s in singles)
              and all(_position_wise(model, [s[rel]], x) for s in singles)]
    outer = [rel for rel in shared if not any(rel.startswith(other + ".") for other in shared)]
    if len(outer) == 1:
        return [[s[outer[0]]] for s in singles]
    mlps, places = [], set()
    for own in per_block:
        leaves = [(rel, m, a, b) for rel, m, a, b in own if m.leaf]
        chains = _chains([(m, a, b) for _, m, a, b in leaves])
        if len(chains) != 1:
            return None
        layers = [leaves[k][1] for k in chains[0]]
        if not any(layer.has_matrix for layer in layers):
            return None
        places.add(tuple(leaves[k][0] for k in chains[0]))
        mlps.append(layers)
    if len(places) != 1 or not all(_position_wise(model, mlp, x) for mlp in mlps):
        return None
    return mlps


def find_mlps(model, idx):
    """The MLP of each block: the outermost class of position-wise stream modules with a weight matrix,
    else what _mlps_in_blocks finds inside the blocks. A list of chains of modules (a chain of one
    module where the MLP is one module), or None."""
    x = torch.randn(2, BLOCK, C, generator=torch.Generator().manual_seed(44), dtype=torch.float64)
    modules, calls = module_calls(model, idx)
    found = []
    for entries in _stream_classes(calls).values():
        candidates = [m for m, _, _ in entries]
        if all(m.has_matrix and _position_wise(model, [m], x) for m in candidates):
            found.append(candidates)
    inner = {d for group in found for m in group for d in m.descendants}
    outer = [group for group in found if not any(m.number in inner for m in group)]
    if len(outer) == 1:
        return [[m] for m in outer[0]]
    return _mlps_in_blocks(model, idx, modules, calls, x) if not outer else None


def mlp_nonlinearity(session):
    """|mlp(a + b) - mlp(a) - mlp(b) + mlp(0)| for every block's MLP: zero for an affine map."""
    model = build_model(session)
    mlps = find_mlps(model, tokens((2, BLOCK), seed=43))
    if mlps is None:
        return {"applicable": False}
    g = torch.Generator().manual_seed(43)
    a = torch.randn(2, BLOCK, C, generator=g, dtype=torch.float64)
    b = torch.randn(2, BLOCK, C, generator=g, dtype=torch.float64)
    nonlinear, scale = [], 0.0
    for mlp in mlps:
        ya, yb, yab, y0 = (read() for read in _calls(model, mlp, [a, b, a + b, torch.zeros_like(a)]))
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


def final_norm(session):
    """Root-mean-square size of each position's features entering the output layer: equal at every
    position when a final normalisation precedes it (its gains start at one). Weight matrices are
    scaled up first so the normalisation's epsilon is negligible against the features' variance."""
    model = build_model(session)
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
