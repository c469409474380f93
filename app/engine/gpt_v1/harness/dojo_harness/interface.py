"""The gpt-v1 interface, checked before anything is measured against it.

Each item is "met", "unmet" (the code does something other than the interface says: `found` tells
what) or "unknown" (the code raised before the item could be seen; the tests report that exception
themselves). The trusted checks hold the wording of what the interface expects.

The agent reports raw facts (agent_interface.py): whether a name is callable and why a call would not
bind, the type a constructor returned, what forward and get_batch returned as it is. Every shape and
type is judged here.
"""

import torch
from dojo_kit.client import CandidateError
from dojo_kit.remote import RemoteModel
from lm_probes.interface_items import MET, Returned, _binds, _get_batch, _shape, _unknown, _unmet
from lm_probes.loading import GptView, tokens

V, B, T = 37, 2, 5


def _model(session):
    view = getattr(session, "view", None) or GptView
    config_name, model_name = view.entry
    config = view.config(vocab_size=V, block_size=12, n_layer=2, n_head=4, n_embd=48, dropout=0.0)
    (config_ok, config_why), (model_ok, model_why) = _binds(
        session, [("model", config_name, 0, config), ("model", model_name, 1, ())])
    for name, ok in ((config_name, config_ok), (model_name, model_ok)):
        if not ok:
            return _unmet(f"model.py defines no {name}"), None
    if config_why:
        return _unmet(f"GPTConfig does not accept the six keyword arguments: {config_why}"), None
    if model_why:
        return _unmet(f"GPT does not accept a single config argument: {model_why}"), None
    try:
        built = session.call("construct", entry=[config_name, model_name], config=config, seed=0, dtype="float64")
    except CandidateError as exc:
        return _unknown(exc), None
    if not built.get("module"):
        return _unmet(f"GPT(config) returned a {built.get('type')}, not an nn.Module"), None
    return MET, RemoteModel(session, built)


def _forward(session, model, with_targets):
    idx, targets = tokens((B, T), seed=90), tokens((B, T), seed=91)
    args = [idx, targets] if with_targets else [idx]
    ((_, why),) = _binds(session, [(model, "forward", len(args), ())])
    if why:
        return _unmet(f"forward does not accept {'(idx, targets)' if with_targets else '(idx)'}: {why}")
    try:
        out = Returned(session.call("forward_raw", handle=model.handle, args=args))
    except CandidateError as exc:
        return _unknown(exc)
    if not out.pair:
        return _unmet(f"it returned {out.type}{f' of {out.length} values' if out.type == 'tuple' else ''}, "
                      "not a (logits, loss) pair")
    logits, loss = out.items
    if _shape(logits) != (B, T, V):
        return _unmet(f"for idx of shape ({B}, {T}) it returned logits of shape {_shape(logits)}")
    if not with_targets and loss is not None:
        return _unmet(f"without targets it returned a loss ({_shape(loss)}) instead of None")
    if with_targets and not (isinstance(loss, torch.Tensor) and loss.numel() == 1):
        return _unmet(f"with targets it returned a loss of shape {_shape(loss)}, not a single number")
    return MET


def _generate(session, model):
    ((ok, why),) = _binds(session, [(model, "generate", 2, ("temperature", "top_k", "generator"))])
    if not ok:
        return _unmet("GPT has no generate method")
    return _unmet(f"generate does not accept these arguments: {why}") if why else MET


def _train(session):
    wanted = (("train_step", 4, ("grad_clip",)), ("evaluate", 2, ()))
    found = _binds(session, [("train", name, n, kwargs) for name, n, kwargs in wanted])
    items = {}
    for (name, _, _), (ok, why) in zip(wanted, found, strict=True):
        why = "train.py defines no such function" if not ok else why
        items[name] = _unmet(f"{name}: {why}") if why else MET
    return items


def interface(session):
    """Each item of the interface the hidden tests rely on: met, unmet (with what was found) or unknown."""
    items = {}
    items["model"], model = _model(session)
    for name, check in (("forward", lambda: _forward(session, model, False)),
                        ("forward_targets", lambda: _forward(session, model, True)),
                        ("generate", lambda: _generate(session, model))):
        items[name] = check() if model is not None else {"state": "unknown", "found": "no model was built"}
    items["get_batch"] = _get_batch(session)
    if "train" in session:
        items.update(_train(session))
    return {"items": items}
