"""The llama-v1 interface, checked before anything is measured against it.

Each item is "met", "unmet" (the code does something other than the interface says: `found` tells
what) or "unknown" (the code raised before the item could be seen; the tests report that exception
themselves). The trusted checks hold the wording of what the interface expects.

The agent reports raw facts (lm_probes/agent_interface.py and llama's agent_ops.py): whether a name is
callable and why a call would not bind, the type a constructor returned, what forward (with or without
a cache) and get_batch returned as it is. Every shape and type is judged here.
"""

import torch
from dojo_kit.client import CandidateError
from dojo_kit.remote import ObservationError, RemoteModel
from lm_probes.interface_items import MET, Returned, _binds, _get_batch, _shape, _unknown, _unmet
from lm_probes.loading import tokens

from .loading import ENTRY, model_args

V, B, T = 37, 2, 5
ARGS = ("dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "max_seq_len", "hidden_dim", "norm_eps",
        "rope_theta", "dropout")
TRAIN = (("train_step", 3, ("grad_clip",)), ("evaluate", 2, ()), ("get_lr", 5, ()))


def _model(session):
    (config_ok, config_why), (model_ok, model_why) = _binds(
        session, [("model", ENTRY[0], 0, ARGS), ("model", ENTRY[1], 1, ())])
    for name, ok in ((ENTRY[0], config_ok), (ENTRY[1], model_ok)):
        if not ok:
            return _unmet(f"model.py defines no {name}"), None
    if config_why:
        return _unmet(f"ModelArgs does not accept the keyword arguments {', '.join(ARGS)}: {config_why}"), None
    if model_why:
        return _unmet(f"Transformer does not accept a single args argument: {model_why}"), None
    try:
        built = session.call("construct", entry=list(ENTRY), config=model_args(), seed=0, dtype="float64")
    except CandidateError as exc:
        return _unknown(exc), None
    if not built.get("module"):
        return _unmet(f"Transformer(args) returned a {built.get('type')}, not an nn.Module"), None
    return MET, RemoteModel(session, built)


def _logits(out, what):
    """None when out is a (logits, loss) pair with logits (B, T, V), else what was found."""
    if not out.pair:
        return (f"{what} returned {out.type}{f' of {out.length} values' if out.type == 'tuple' else ''}, "
                "not a (logits, loss) pair")
    if _shape(out.items[0]) != (B, T, V):
        return f"for tokens of shape ({B}, {T}) {what} returned logits of shape {_shape(out.items[0])}"
    return None


def _forward(session, model, with_targets):
    idx, targets = tokens((B, T), seed=90), tokens((B, T), seed=91)
    args = [idx, targets] if with_targets else [idx]
    ((_, why),) = _binds(session, [(model, "forward", len(args), ())])
    if why:
        return _unmet(f"forward does not accept {'(tokens, targets)' if with_targets else '(tokens)'}: {why}")
    try:
        out = Returned(session.call("forward_raw", handle=model.handle, args=args))
    except CandidateError as exc:
        return _unknown(exc)
    found = _logits(out, "it")
    if found:
        return _unmet(found)
    loss = out.items[1]
    if not with_targets and loss is not None:
        return _unmet(f"without targets it returned a loss ({_shape(loss)}) instead of None")
    if with_targets and not (isinstance(loss, torch.Tensor) and loss.numel() == 1):
        return _unmet(f"with targets it returned a loss of shape {_shape(loss)}, not a single number")
    return MET


def _cache(session, model):
    ((ok, why),) = _binds(session, [(model, "new_cache", 1, ())])
    if not ok:
        return _unmet("Transformer has no new_cache method")
    if why:
        return _unmet(f"new_cache does not accept (batch_size): {why}")
    ((_, why),) = _binds(session, [(model, "forward", 1, ("cache", "start_pos"))])
    if why:
        return _unmet(f"forward does not accept (tokens, cache=..., start_pos=...): {why}")
    try:
        cache = model.new_cache(B)
        out = Returned(session.call("llama_forward_cached_raw", handle=model.handle, tokens=tokens((B, T), seed=92),
                                    cache=cache, start_pos=0))
    except CandidateError as exc:
        return _unknown(exc)
    if not out.pair:  # the probes' checked call raises this
        return {"state": "unknown", "found": "TypeError: forward must return a (logits, loss) tuple"}
    found = _logits(out, "forward with a cache")
    return _unmet(found) if found else MET


def _generate(session, model):
    ((ok, why),) = _binds(session, [(model, "generate", 2, ("temperature", "top_k", "top_p", "generator",
                                                            "use_cache"))])
    if not ok:
        return _unmet("Transformer has no generate method")
    return _unmet(f"generate does not accept these arguments: {why}") if why else MET


def _train(session):
    found = session.call("llama_train_binds", items=[[name, n, list(kwargs)] for name, n, kwargs in TRAIN])
    if not isinstance(found, list) or len(found) != len(TRAIN) or not all(isinstance(f, dict) for f in found):
        raise ObservationError("the signatures did not come back")
    items = {}
    for (name, _, _), fact in zip(TRAIN, found, strict=True):
        why = fact.get("why") if isinstance(fact.get("why"), str) else None
        why = "train.py defines no such function" if not fact.get("callable") else why
        items[name] = _unmet(f"{name}: {why}") if why else MET
    return items


def interface(session):
    """Each item of the interface the hidden tests rely on: met, unmet (with what was found) or unknown."""
    items = {}
    items["model"], model = _model(session)
    for name, check in (("forward", lambda: _forward(session, model, False)),
                        ("forward_targets", lambda: _forward(session, model, True)),
                        ("cache", lambda: _cache(session, model)),
                        ("generate", lambda: _generate(session, model))):
        items[name] = check() if model is not None else {"state": "unknown", "found": "no model was built"}
    items["get_batch"] = _get_batch(session)
    if "train" in session:
        items.update(_train(session))
    return {"items": items}
