"""The llama-v1 interface, checked before anything is measured against it.

Each item is "met", "unmet" (the code does something other than the interface says: `found` tells
what) or "unknown" (the code raised before the item could be seen; the tests report that exception
themselves). The trusted checks hold the wording of what the interface expects.
"""

import torch
from dojo_harness.interface import MET, _binds, _get_batch, _shape, _unknown, _unmet
from dojo_harness.loading import tokens

from .loading import build_llama, call, model_args

V, B, T = 37, 2, 5
ARGS = ("dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "max_seq_len", "hidden_dim", "norm_eps",
        "rope_theta", "dropout")


def _model(mods):
    model_mod = mods["model"]
    for name in ("ModelArgs", "Transformer"):
        if not callable(getattr(model_mod, name, None)):
            return _unmet(f"model.py defines no {name}"), None
    why = _binds(model_mod.ModelArgs, **{name: 1 for name in ARGS})
    if why:
        return _unmet(f"ModelArgs does not accept the keyword arguments {', '.join(ARGS)}: {why}"), None
    why = _binds(model_mod.Transformer, object())
    if why:
        return _unmet(f"Transformer does not accept a single args argument: {why}"), None
    try:
        model_args(model_mod)
        model = build_llama(model_mod)
    except Exception as exc:
        return _unknown(exc, mods), None
    if not isinstance(model, torch.nn.Module):
        return _unmet(f"Transformer(args) returned a {type(model).__name__}, not an nn.Module"), None
    return MET, model


def _logits(out, what):
    """None when out is a (logits, loss) pair with logits (B, T, V), else what was found."""
    if not isinstance(out, tuple) or len(out) != 2:
        return (f"{what} returned {type(out).__name__}"
                f"{f' of {len(out)} values' if isinstance(out, tuple) else ''}, not a (logits, loss) pair")
    if _shape(out[0]) != (B, T, V):
        return f"for tokens of shape ({B}, {T}) {what} returned logits of shape {_shape(out[0])}"
    return None


def _forward(model, mods, with_targets):
    idx, targets = tokens((B, T), seed=90), tokens((B, T), seed=91)
    args = (idx, targets) if with_targets else (idx,)
    why = _binds(model.forward, *args)
    if why:
        return _unmet(f"forward does not accept {'(tokens, targets)' if with_targets else '(tokens)'}: {why}")
    try:
        with torch.no_grad():
            out = model(*args)
    except Exception as exc:
        return _unknown(exc, mods)
    found = _logits(out, "it")
    if found:
        return _unmet(found)
    loss = out[1]
    if not with_targets and loss is not None:
        return _unmet(f"without targets it returned a loss ({_shape(loss)}) instead of None")
    if with_targets and not (isinstance(loss, torch.Tensor) and loss.numel() == 1):
        return _unmet(f"with targets it returned a loss of shape {_shape(loss)}, not a single number")
    return MET


def _cache(model, mods):
    if not callable(getattr(model, "new_cache", None)):
        return _unmet("Transformer has no new_cache method")
    why = _binds(model.new_cache, B)
    if why:
        return _unmet(f"new_cache does not accept (batch_size): {why}")
    idx = tokens((B, T), seed=92)
    why = _binds(model.forward, idx, cache=object(), start_pos=0)
    if why:
        return _unmet(f"forward does not accept (tokens, cache=..., start_pos=...): {why}")
    try:
        with torch.no_grad():
            out = call(model, idx, cache=model.new_cache(B), start_pos=0)
    except Exception as exc:
        return _unknown(exc, mods)
    found = _logits(out, "forward with a cache")
    return _unmet(found) if found else MET


def _generate(model):
    gen = getattr(model, "generate", None)
    if not callable(gen):
        return _unmet("Transformer has no generate method")
    why = _binds(gen, tokens((1, 3)), 2, temperature=1.0, top_k=None, top_p=None, generator=torch.Generator(),
                 use_cache=True)
    return _unmet(f"generate does not accept these arguments: {why}") if why else MET


def _train(mods):
    train = mods["train"]
    items = {}
    for name, args, kwargs in (("train_step", (None, None, []), {"grad_clip": 1.0}),
                               ("evaluate", (None, []), {}),
                               ("get_lr", (0, 10, 100, 1e-3, 1e-4), {})):
        func = getattr(train, name, None)
        why = "train.py defines no such function" if not callable(func) else _binds(func, *args, **kwargs)
        items[name] = _unmet(f"{name}: {why}") if why else MET
    return items


def interface(mods):
    """Each item of the interface the hidden tests rely on: met, unmet (with what was found) or unknown."""
    items = {}
    items["model"], model = _model(mods)
    for name, check in (("forward", lambda: _forward(model, mods, False)),
                        ("forward_targets", lambda: _forward(model, mods, True)),
                        ("cache", lambda: _cache(model, mods)),
                        ("generate", lambda: _generate(model))):
        items[name] = check() if model is not None else {"state": "unknown", "found": "no model was built"}
    items["get_batch"] = _get_batch(mods)
    if "train" in mods:
        items.update(_train(mods))
    return {"items": items}
