"""The judge's reading of a forward pass's torch calls, recorded by the agent (agent_tracing.py).

Trace rebuilds the calls from the agent's records with their tensors, each table entry one object, so
a tensor can be traced back to the call that produced it exactly as in the candidate's process. The
findings (which softmax is attention, which matmul made its scores, what constant factors were
applied) are made here.
"""

import torch
from dojo_kit.remote import ObservationError

from .records import Table

# Calls that only rearrange or convert the values of one tensor (no arithmetic).
REARRANGE = {
    "view", "reshape", "transpose", "permute", "contiguous", "__getitem__", "split", "chunk", "unbind",
    "unsqueeze", "squeeze", "expand", "expand_as", "to", "float", "double", "type", "type_as", "clone",
    "flatten", "unflatten", "mT", "T", "t", "swapaxes", "swapdims", "movedim", "narrow", "select",
    "tensor_split", "view_as", "reshape_as", "split_with_sizes", "detach",
}
SCALE_BY = {"mul", "mul_", "__mul__", "__rmul__", "__imul__", "multiply"}
SCALE_DOWN = {"div", "div_", "__truediv__", "__itruediv__", "true_divide", "divide"}
MATMUL = {"matmul", "__matmul__", "__rmatmul__", "bmm", "einsum"}
MAX_CALLS = 20000


def _tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


class Call:
    """One recorded torch call: its name, arguments, and output."""

    def __init__(self, name, args, kwargs, out):
        self.name, self.args, self.kwargs, self.out = name, args, kwargs, out
        self.inputs = _tensors(list(args)) + _tensors(list(kwargs.values()))
        self.outputs = _tensors(out)


class Trace:
    """The recorded calls that produced tensors, and `logits`, what the forward pass returned."""

    def __init__(self, record):
        if not isinstance(record, dict) or not isinstance(record.get("calls"), list):
            raise ObservationError("the trace is not a record of calls")
        if len(record["calls"]) > MAX_CALLS:
            raise ObservationError("the trace has too many calls")
        table = Table(record.get("tensors"))
        self.calls, self._producer = [], {}
        for raw in record["calls"]:
            if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) \
                    or not isinstance(raw.get("kwargs"), dict):
                raise ObservationError("the trace holds a call that is not one")
            args = table.value(raw.get("args") or [])
            call = Call(raw["name"], args if isinstance(args, tuple) else (args,),
                        {str(k): table.value(v) for k, v in raw["kwargs"].items()}, table.value(raw.get("out")))
            if not call.outputs:
                continue
            self.calls.append(call)
            for t in call.outputs:
                if not any(t is i for i in call.inputs):  # an in-place call keeps the earlier producer
                    self._producer[id(t)] = call
        self.logits = table.tensor(record.get("logits"))

    def producer(self, tensor):
        """The recorded call that returned this tensor, or None (a parameter, a buffer, an input)."""
        call = self._producer.get(id(tensor))
        if call is not None and any(tensor is t for t in call.outputs):
            return call
        return None

    def named(self, *names):
        return [c for c in self.calls if c.name in names]


def traced_forward(model, idx, *, cache=None, start_pos=0):
    """The Trace of one forward pass of a RemoteModel (no gradients) on the judge's tokens."""
    mode = model.sync()
    record = model.session.call("trace_forward", handle=model.handle, tokens=idx, cache=cache,
                                start_pos=start_pos, **mode)
    return Trace(record)


def traced_modules(model, chain, x):
    """The Trace of applying submodules one after another to x (no gradients); `chain` holds modules.py
    Modules or module names."""
    mode = model.sync()
    names = [getattr(m, "name", m) for m in chain]
    return Trace(model.session.call("trace_modules", handle=model.handle, chain=names, x=x, **mode))


def scalar(value):
    """A Python number or a one-element tensor as a float, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.detach().reshape(()))
    return None


def scale_factor(trace, tensor, limit=12):
    """The product of the constant factors applied to `tensor` since it was last computed by real
    arithmetic: walks back through rearrangements and multiplications or divisions by a number."""
    factor = 1.0
    for _ in range(limit):
        call = trace.producer(tensor)
        if call is None or not call.inputs:
            break
        source = call.args[0] if call.args and isinstance(call.args[0], torch.Tensor) else None
        if call.name in REARRANGE and source is not None:
            tensor = source
            continue
        if call.name in SCALE_BY | SCALE_DOWN and len(call.args) == 2:
            a, b = call.args
            number, other = (scalar(b), a) if isinstance(a, torch.Tensor) and a.numel() > 1 else (scalar(a), b)
            if number is None or not isinstance(other, torch.Tensor):
                break
            if call.name in SCALE_DOWN:
                if other is not a or number == 0:
                    break
                number = 1.0 / number
            factor *= number
            tensor = other
            continue
        break
    return factor


def find_matmul(trace, tensor, size, limit=40):
    """The matmul-like call whose (..., size, size) output `tensor` was computed from, following only
    tensors of that trailing shape (masking, scaling, additive biases); None when there is none."""
    seen, stack = set(), [tensor]
    while stack and len(seen) < limit:
        t = stack.pop()
        call = trace.producer(t)
        if call is None or id(call) in seen:
            continue
        seen.add(id(call))
        if call.name in MATMUL and len(call.inputs) == 2:
            return call
        square = [i for i in call.inputs if i.dim() >= 2 and tuple(i.shape[-2:]) == (size, size)]
        stack.extend(reversed(square))  # the first argument is searched first
    return None
