"""Record the torch calls of one forward pass, whatever the candidate named its modules (runs in the
sandbox; the judge reads the records with tracing.py).

A TorchFunctionMode sees every torch function and tensor method the candidate's code calls
(F.linear inside nn.Linear, softmax, matmul, masked_fill, views...), each once: calls made inside
torch itself are not re-reported. Each recorded call keeps its arguments and outputs alive until the
record is sent, so a tensor's identity names it: the judge traces a tensor back to the call that
produced it. Nothing is analysed here.
"""

import torch
from dojo_kit.model_ops import forward_call
from torch.overrides import TorchFunctionMode

from .agent_records import TensorTable


def call_name(func):
    """The torch name of a traced call; property getters (x.mT) are named by their property."""
    name = getattr(func, "__name__", "")
    if name == "__get__":
        name = getattr(getattr(func, "__self__", None), "__name__", name)
    return name


def _has_tensor(value):
    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_tensor(v) for v in value)
    return False


class Recorder(TorchFunctionMode):
    """Context manager keeping (name, args, kwargs, out) of every call that returns a tensor."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if _has_tensor(out):
            self.calls.append((call_name(func), args, kwargs, out))
        return out

    def record(self, logits=None):
        """{"calls": [{"name", "args", "kwargs", "out"}], "logits": ref, "tensors": table} to send."""
        table = TensorTable()
        calls = [{"name": name, "args": table.encode(list(args)),
                  "kwargs": {str(k): table.encode(v) for k, v in kwargs.items()}, "out": table.encode(out)}
                 for name, args, kwargs, out in self.calls]
        return {"calls": calls, "logits": table.ref(logits) if isinstance(logits, torch.Tensor) else None,
                "tensors": table.values()}


def _submodule(model, name):
    modules = dict(model.named_modules(remove_duplicate=False))
    if name not in modules:
        raise KeyError(f"no module {name!r}")
    return modules[name]


def register(agent):
    """Add the tracing requests to an Agent."""

    def trace_forward(handle, tokens, cache=None, start_pos=0, train=None):
        """The calls of one forward pass without gradients (through a cache when given)."""
        model = agent.get(handle)
        if train is not None:
            model.train(bool(train))
        tokens = tokens.long().contiguous()
        cache_obj = agent.get(cache) if cache is not None else None
        with Recorder() as recorder, torch.no_grad():
            logits, _ = forward_call(model, tokens, None, cache_obj, int(start_pos))
        return recorder.record(logits)

    def trace_modules(handle, chain, x, train=None):
        """The calls of applying the named submodules one after another to x, without gradients."""
        model = agent.get(handle)
        if train is not None:
            model.train(bool(train))
        layers = [_submodule(model, str(name)) for name in chain]
        with Recorder() as recorder, torch.no_grad():
            for layer in layers:
                x = layer(x)
        return recorder.record(x if isinstance(x, torch.Tensor) else None)

    agent.register({"trace_forward": trace_forward, "trace_modules": trace_modules})
