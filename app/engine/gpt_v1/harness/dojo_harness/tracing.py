"""Record the torch calls of one forward pass, whatever the candidate named its modules.

A TorchFunctionMode sees every torch function and tensor method the candidate's code calls
(F.linear inside nn.Linear, softmax, matmul, masked_fill, views...), each once: calls made inside
torch itself are not re-reported. Each recorded call keeps its tensor arguments and outputs alive,
so a tensor can be traced back to the call that produced it.
"""

import torch
from torch.overrides import TorchFunctionMode

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


def call_name(func):
    """The torch name of a traced call; property getters (x.mT) are named by their property."""
    name = getattr(func, "__name__", "")
    if name == "__get__":
        name = getattr(getattr(func, "__self__", None), "__name__", name)
    return name


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


class Trace(TorchFunctionMode):
    """Context manager recording the calls that produce tensors."""

    def __init__(self):
        super().__init__()
        self.calls = []
        self.logits = None
        self._producer = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        call = Call(call_name(func), args, kwargs, out)
        if call.outputs:
            self.calls.append(call)
            for t in call.outputs:
                if not any(t is i for i in call.inputs):  # an in-place call keeps the earlier producer
                    self._producer[id(t)] = call
        return out

    def producer(self, tensor):
        """The recorded call that returned this tensor, or None (a parameter, a buffer, an input)."""
        call = self._producer.get(id(tensor))
        if call is not None and any(tensor is t for t in call.outputs):
            return call
        return None

    def named(self, *names):
        return [c for c in self.calls if c.name in names]


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
