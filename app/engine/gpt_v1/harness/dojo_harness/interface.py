"""The gpt-v1 interface, checked before anything is measured against it.

Each item is "met", "unmet" (the code does something other than the interface says: `found` tells
what) or "unknown" (the code raised before the item could be seen; the tests report that exception
themselves). The trusted checks hold the wording of what the interface expects.
"""

import inspect

import torch

from .errors import describe
from .loading import build_model, tokens

V, B, T = 37, 2, 5


def _binds(func, *args, **kwargs):
    """None when func accepts these arguments, else why not."""
    try:
        inspect.signature(func).bind(*args, **kwargs)
    except TypeError as exc:
        return str(exc)
    except ValueError:  # no signature to inspect (a builtin): let the call decide
        return None
    return None


def _shape(value):
    return tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__


def _unmet(found):
    return {"state": "unmet", "found": found}


def _unknown(exc, mods):
    return {"state": "unknown", "found": describe(exc, mods.get("_dir"))}


MET = {"state": "met"}


def _model(mods):
    model_mod = mods["model"]
    for name in ("GPTConfig", "GPT"):
        if not callable(getattr(model_mod, name, None)):
            return _unmet(f"model.py defines no {name}"), None
    why = _binds(model_mod.GPTConfig, vocab_size=V, block_size=12, n_layer=2, n_head=4, n_embd=48, dropout=0.0)
    if why:
        return _unmet(f"GPTConfig does not accept the six keyword arguments: {why}"), None
    why = _binds(model_mod.GPT, object())
    if why:
        return _unmet(f"GPT does not accept a single config argument: {why}"), None
    try:
        model = build_model(model_mod)
    except Exception as exc:
        return _unknown(exc, mods), None
    if not isinstance(model, torch.nn.Module):
        return _unmet(f"GPT(config) returned a {type(model).__name__}, not an nn.Module"), None
    return MET, model


def _forward(model, mods, with_targets):
    idx, targets = tokens((B, T), seed=90), tokens((B, T), seed=91)
    args = (idx, targets) if with_targets else (idx,)
    why = _binds(model.forward, *args)
    if why:
        return _unmet(f"forward does not accept {'(idx, targets)' if with_targets else '(idx)'}: {why}")
    try:
        with torch.no_grad():
            out = model(*args)
    except Exception as exc:
        return _unknown(exc, mods)
    if not isinstance(out, tuple) or len(out) != 2:
        return _unmet(f"it returned {type(out).__name__}{f' of {len(out)} values' if isinstance(out, tuple) else ''}, "
                      "not a (logits, loss) pair")
    logits, loss = out
    if _shape(logits) != (B, T, V):
        return _unmet(f"for idx of shape ({B}, {T}) it returned logits of shape {_shape(logits)}")
    if not with_targets and loss is not None:
        return _unmet(f"without targets it returned a loss ({_shape(loss)}) instead of None")
    if with_targets and not (isinstance(loss, torch.Tensor) and loss.numel() == 1):
        return _unmet(f"with targets it returned a loss of shape {_shape(loss)}, not a single number")
    return MET


def _generate(model):
    gen = getattr(model, "generate", None)
    if not callable(gen):
        return _unmet("GPT has no generate method")
    why = _binds(gen, tokens((1, 3)), 2, temperature=1.0, top_k=None, generator=torch.Generator())
    return _unmet(f"generate does not accept these arguments: {why}") if why else MET


def _get_batch(mods):
    get_batch = getattr(mods["data"], "get_batch", None)
    if not callable(get_batch):
        return _unmet("data.py defines no get_batch")
    data = torch.arange(64, dtype=torch.long)
    why = _binds(get_batch, data, 8, 6, torch.Generator())
    if why:
        return _unmet(f"get_batch does not accept (data, block_size, batch_size, generator): {why}")
    try:
        out = get_batch(data, 8, 6, torch.Generator().manual_seed(0))
    except Exception as exc:
        return _unknown(exc, mods)
    if not isinstance(out, tuple) or len(out) != 2:
        return _unmet(f"it returned {type(out).__name__}, not a pair (x, y)")
    shapes = tuple(_shape(t) for t in out)
    if shapes != ((6, 8), (6, 8)):
        return _unmet(f"with block_size=8 and batch_size=6 it returned x {shapes[0]} and y {shapes[1]}")
    return MET


def _train(mods):
    train = mods["train"]
    items = {}
    for name, args, kwargs in (("train_step", (None, None, None, None), {"grad_clip": 1.0}),
                               ("evaluate", (None, []), {})):
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
                        ("generate", lambda: _generate(model))):
        items[name] = check() if model is not None else {"state": "unknown", "found": "no model was built"}
    items["get_batch"] = _get_batch(mods)
    if "train" in mods:
        items.update(_train(mods))
    return {"items": items}
