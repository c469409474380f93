"""What a challenge interface's check is made of, shared by every language-model interface: the item
states ("met", "unmet" with what was found, "unknown" with the exception), what a call returned as the
agent saw it (Returned), whether names are callable and why a call would not bind (_binds), and the
data contract's get_batch item, which both interfaces word the same.

The agent reports raw facts (agent_interface.py); every shape and type is judged here.
"""

import torch
from dojo_kit.client import CandidateError
from dojo_kit.remote import ObservationError, RemoteModel

from .errors import describe

MET = {"state": "met"}


class Returned:
    """What a call returned, as the agent saw it: its type's name and, for a tuple, its items."""

    def __init__(self, raw):
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            raise ObservationError("what the call returned did not come back")
        self.type = raw["type"]
        items = raw.get("items")
        self.items = items if isinstance(items, list) else None
        self.length = raw.get("length") if isinstance(raw.get("length"), int) else None

    @property
    def pair(self):
        return self.type == "tuple" and self.length == 2 and self.items is not None and len(self.items) == 2


def _shape(value):
    if isinstance(value, torch.Tensor):
        return tuple(value.shape)
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        return value["type"]
    return type(value).__name__


def _unmet(found):
    return {"state": "unmet", "found": found}


def _unknown(exc):
    return {"state": "unknown", "found": describe(exc)}


def _binds(session, items):
    """[(callable, why not)] for (owner, attr, n_args, kwargs) items, owner a module name or a model."""
    request = []
    for owner, attr, n_args, kwargs in items:
        where = {"handle": owner.handle} if isinstance(owner, RemoteModel) else {"module": owner}
        request.append({**where, "attr": attr, "args": n_args, "kwargs": list(kwargs)})
    out = session.call("binds", items=request)
    if not isinstance(out, list) or len(out) != len(items):
        raise ObservationError("the signatures did not come back")
    return [(bool(o.get("callable")), o.get("why") if isinstance(o.get("why"), str) else None) for o in out]


def _get_batch(session):
    ((ok, why),) = _binds(session, [("data", "get_batch", 4, ())])
    if not ok:
        return _unmet("data.py defines no get_batch")
    if why:
        return _unmet(f"get_batch does not accept (data, block_size, batch_size, generator): {why}")
    try:
        out = Returned(session.call("get_batch_raw", data=torch.arange(64, dtype=torch.long), block_size=8,
                                    batch_size=6, seed=0))
    except CandidateError as exc:
        return _unknown(exc)
    if not out.pair:
        return _unmet(f"it returned {out.type}, not a pair (x, y)")
    shapes = tuple(_shape(t) for t in out.items)
    if shapes != ((6, 8), (6, 8)):
        return _unmet(f"with block_size=8 and batch_size=6 it returned x {shapes[0]} and y {shapes[1]}")
    return MET
