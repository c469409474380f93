"""Raw facts about the candidate's interface (runs in the sandbox; interface.py judges them).

Whether a name is callable and whether its signature accepts a call of a given shape, the type of what
a constructor returned, and what forward or get_batch returned as it is (a tuple of tensors, None or
other things named by their type), so the judge can tell an interface that is unmet from code that
raised.
"""

import inspect

import torch
import torch.nn as nn
from dojo_kit.model_ops import cast


def _why_not(func, n_args, kwargs):
    """None when func accepts n_args positional arguments and these keyword arguments, else why not."""
    try:
        inspect.signature(func).bind(*([None] * int(n_args)), **{str(k): None for k in kwargs})
    except TypeError as exc:
        return str(exc)[:400]
    except ValueError:  # no signature to inspect (a builtin): let the call decide
        return None
    return None


def _plain(value):
    if value is None or isinstance(value, torch.Tensor):
        return value
    return {"type": type(value).__name__}


def returned(value):
    """What a call returned: {"type": its type's name, "items": [tensor | None | {"type"}] for a tuple}."""
    out = {"type": type(value).__name__}
    if isinstance(value, tuple):
        out["items"] = [_plain(v) for v in value[:8]]
        out["length"] = len(value)
    elif isinstance(value, torch.Tensor):
        out["items"] = [value]
    return out


def register(agent):
    """Add the interface requests to an Agent."""

    def binds(items):
        """For each {"module" | "handle", "attr", "args", "kwargs"}: is the attribute callable, and why
        a call with that many positional arguments and those keyword names would not bind."""
        out = []
        for item in items:
            owner = agent.get(item["handle"]) if "handle" in item else agent.mods.get(item["module"])
            func = getattr(owner, item["attr"], None) if owner is not None else None
            if not callable(func):
                out.append({"callable": False, "why": None})
                continue
            out.append({"callable": True, "why": _why_not(func, item.get("args", 0), item.get("kwargs", []))})
        return out

    def construct(entry, config, seed=0, dtype="float64"):
        """The model built as the kit's build does, or the type of what the constructor returned when it
        is not an nn.Module."""
        config_name, model_name = entry
        module = agent.mods["model"]
        cfg = getattr(module, config_name)(**config)
        torch.manual_seed(int(seed))
        model = getattr(module, model_name)(cfg)
        if not isinstance(model, nn.Module):
            return {"module": False, "type": type(model).__name__}
        cast(model, {"float64": torch.float64, "float32": torch.float32}[dtype])
        model.train(False)
        handle = agent.keep(model)
        return {"module": True, "handle": handle, **agent.ops["describe"](handle)}

    def forward_raw(handle, args):
        """model(*args) without gradients, returned as it is."""
        model = agent.get(handle)
        with torch.no_grad():
            return returned(model(*[a.long().contiguous() for a in args]))

    def get_batch_raw(data, block_size, batch_size, seed):
        """data.get_batch(data, block_size, batch_size, generator seeded with seed), returned as it is."""
        g = torch.Generator().manual_seed(int(seed))
        return returned(agent.mods["data"].get_batch(data.long(), int(block_size), int(batch_size), g))

    agent.register({"binds": binds, "construct": construct, "forward_raw": forward_raw,
                    "get_batch_raw": get_batch_raw})
