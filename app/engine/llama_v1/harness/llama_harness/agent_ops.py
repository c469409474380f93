"""llama-v1's requests the agent answers beyond the shared model requests (dojo_kit/model_ops.py) and
the shared ones (lm_probes/agent_*.py, which both interfaces register): whether a call of train.py's own
functions would bind, what forward returned through a cache, the tensors a cache holds, get_lr's values,
the gradients train_step hands the optimizer for a list of micro-batches.

Runs in the sandbox, in the candidate's process: every request returns raw observations for inputs
the judge chose; the judge computes the measurements (llama_harness/*_probes.py, interface.py).
"""

import inspect

import torch
from dojo_kit.agent import describe
from lm_probes.agent_interface import returned
from lm_probes.agent_optim import AdamW
from lm_probes.agent_training import StepSpy


class TrainModule:
    """train.py as the shared requests call it: train_step(model, optimizer, x, y) is a step of one
    micro-batch [(x, y)]; evaluate and anything else are the candidate's own."""

    def __init__(self, train_mod):
        self._mod = train_mod

    def __getattr__(self, name):
        return getattr(self._mod, name)

    def train_step(self, model, optimizer, x, y, grad_clip=1.0):
        return self._mod.train_step(model, optimizer, [(x.contiguous(), y.contiguous())], grad_clip=grad_clip)


def _tensors(obj, found, seen, depth=0):
    """Every tensor reachable from obj through containers and object attributes."""
    if depth > 6 or id(obj) in seen or len(found) > 200:
        return
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        found.append(obj)
    elif isinstance(obj, torch.nn.Module):
        found.extend(obj.buffers())
    elif isinstance(obj, dict):
        for value in obj.values():
            _tensors(value, found, seen, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            _tensors(value, found, seen, depth + 1)
    elif hasattr(obj, "__dict__") or hasattr(obj, "__slots__"):
        values = list(vars(obj).values()) if hasattr(obj, "__dict__") else []
        values += [getattr(obj, name, None) for name in getattr(obj, "__slots__", ())]
        for value in values:
            _tensors(value, found, seen, depth + 1)


def _facts(tensors):
    return [[str(t.dtype).removeprefix("torch."), list(t.shape)] for t in tensors]


def register(agent):
    """Add llama-v1's requests to an Agent. The shared requests then see train.py through TrainModule;
    llama-v1's own see the candidate's module."""
    own_train = agent.mods.get("train")
    if own_train is not None:
        agent.mods["train"] = TrainModule(own_train)

    def train_binds(items):
        """For each [name, n_args, keyword names]: is train.<name> callable, and why a call with that many
        positional arguments and those keywords would not bind (None: it would)."""
        out: list[dict[str, object]] = []
        for name, n_args, kwargs in items:
            func = getattr(own_train, str(name), None)
            if not callable(func):
                out.append({"callable": False, "why": None})
                continue
            try:
                inspect.signature(func).bind(*([None] * int(n_args)), **{str(k): None for k in kwargs})
                why = None
            except TypeError as exc:
                why = str(exc)[:400]
            except ValueError:  # no signature to inspect (a builtin): let the call decide
                why = None
            out.append({"callable": True, "why": why})
        return out

    def forward_cached_raw(handle, tokens, cache, start_pos):
        """model(tokens, cache=, start_pos=) without gradients, returned as it is."""
        model = agent.get(handle)
        with torch.no_grad():
            return returned(model(tokens.long().contiguous(), cache=agent.get(cache), start_pos=int(start_pos)))

    def cache_tensors(handle, cache):
        """dtype and shape of every tensor reachable from the cache object, and of the model's buffers."""
        found: list[torch.Tensor] = []
        _tensors(agent.get(cache), found, set())
        return {"cache": _facts(found), "buffers": _facts(agent.get(handle).buffers())}

    def get_lr(schedules):
        """get_lr(step, warmup, max_steps, max_lr, min_lr) at steps 0 .. max_steps + 5 of each schedule
        [warmup, max_steps, max_lr, min_lr]: {"lr": [...]} or {"error": what the code raised}."""
        out = []
        for warmup, max_steps, max_lr, min_lr in schedules:
            try:
                out.append({"lr": [float(own_train.get_lr(step, warmup, max_steps, max_lr, min_lr))
                                   for step in range(int(max_steps) + 6)]})
            except Exception as exc:
                out.append({"error": describe(exc, agent.candidate_dir)})
        return out

    def train_step_micro(handle, micro_batches, grad_clip, lr):
        """The candidate's train_step(model, AdamW(lr), micro_batches, grad_clip=): the gradients the
        optimizer was handed at each step call, and what train_step returned (a number, or None)."""
        model = agent.get(handle)
        spy = StepSpy(model, AdamW(model.parameters(), lr=float(lr)))
        batches = [(x.long().contiguous(), y.long().contiguous()) for x, y in micro_batches]
        returned_value = own_train.train_step(model, spy.optimizer, batches, grad_clip=float(grad_clip))
        return {"used": spy.calls, "returned": None if returned_value is None else float(returned_value)}

    agent.register({
        "llama_train_binds": train_binds, "llama_forward_cached_raw": forward_cached_raw,
        "llama_cache_tensors": cache_tensors, "llama_get_lr": get_lr, "llama_train_step_micro": train_step_micro,
    })
