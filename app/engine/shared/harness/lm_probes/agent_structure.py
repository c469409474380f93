"""The model's modules as raw facts, the calls they received in one forward pass, and calls of chosen
modules on the judge's inputs (runs in the sandbox; structure_probes.py finds blocks and MLPs).

Modules are numbered in model.modules() order (the same numbering for every request on one model).
Each module's facts are plain: every name it has in the model, its class (numbered by identity, with
its name), whether it has children, parameters of two or more dimensions, the model-level names of
its parameters, its descendants, an nn.Linear's sizes, an integer n_head attribute.
"""

import torch
import torch.nn as nn
from dojo_kit.agent import describe
from dojo_kit.model_ops import forward_call

from .agent_records import TensorTable


def _modules(model):
    return list(model.modules())


def _facts(model):
    modules = _modules(model)
    index = {id(m): k for k, m in enumerate(modules)}
    names = {k: [] for k in range(len(modules))}
    for name, m in model.named_modules(remove_duplicate=False):
        if id(m) in index:
            names[index[id(m)]].append(name)
    param_names = {id(p): name for name, p in model.named_parameters()}
    classes, records = {}, []
    for k, m in enumerate(modules):
        cls = type(m)
        linear = None
        if isinstance(m, nn.Linear):
            linear = {"in": int(m.in_features), "out": int(m.out_features)}
        n_head = getattr(m, "n_head", None)
        records.append({
            "names": names[k], "class": classes.setdefault(cls, len(classes)),
            "class_name": f"{cls.__module__}.{cls.__qualname__}"[:200],
            "leaf": next(m.children(), None) is None,
            "has_matrix": any(p.dim() >= 2 for p in m.parameters()),
            "params": [param_names[id(p)] for p in m.parameters() if id(p) in param_names],
            "descendants": [index[id(d)] for d in m.modules() if d is not m and id(d) in index],
            "module_list": isinstance(m, nn.ModuleList), "linear": linear,
            "n_head": n_head if isinstance(n_head, int) and not isinstance(n_head, bool) else None,
        })
    return modules, records


def _first_tensor(args, kwargs):
    for value in [*args, *kwargs.values()]:
        if isinstance(value, torch.Tensor):
            return value
    return None


def register(agent):
    """Add the structure requests to an Agent."""

    def module_table(handle):
        return {"modules": _facts(agent.get(handle))[1]}

    def module_calls(handle, tokens, train=None):
        """[(module, its first tensor argument, its output)] for every submodule call of one forward
        without gradients, in the order the calls finish, with the module facts.

        Each submodule's forward is wrapped on the instance rather than hooked: code that calls
        `self.feed_forward.forward(x)` (llama2.c does) runs no module hooks, but it does run the wrapper."""
        model = agent.get(handle)
        if train is not None:
            model.train(bool(train))
        modules, records = _facts(model)
        calls = []
        wrapped = [(k, m) for k, m in enumerate(modules) if m is not model]
        saved = [m.__dict__.get("forward") for _, m in wrapped]

        def recording(k, inner):
            def forward_and_record(*args, **kwargs):
                output = inner(*args, **kwargs)
                calls.append((k, _first_tensor(args, kwargs), output))
                return output
            return forward_and_record

        for k, m in wrapped:
            m.forward = recording(k, m.forward)
        try:
            with torch.no_grad():
                forward_call(model, tokens)
        finally:
            for (_, m), own in zip(wrapped, saved, strict=True):
                if own is None:
                    m.__dict__.pop("forward", None)  # the class's forward again
                else:
                    m.forward = own
        table = TensorTable()
        out = [{"module": k, "input": table.ref(x) if x is not None else None,
                "output": table.ref(y) if isinstance(y, torch.Tensor) else None} for k, x, y in calls]
        return {"modules": records, "calls": out, "tensors": table.values()}

    def call_modules(handle, calls, train=None):
        """For each {"chain": [module numbers], "x": tensor}: the modules applied one after another to
        x without gradients. Each result is the output tensor, {"type": name} for anything else, or
        {"type_error" | "error": description} when a module raised."""
        model = agent.get(handle)
        if train is not None:
            model.train(bool(train))
        modules = _modules(model)
        results = []
        with torch.no_grad():
            for item in calls:
                y = item["x"]
                try:
                    for k in item["chain"]:
                        y = modules[int(k)](y)
                except TypeError as exc:
                    results.append({"type_error": describe(exc, agent.candidate_dir)})
                    continue
                except (Exception, SystemExit) as exc:
                    results.append({"error": describe(exc, agent.candidate_dir)})
                    continue
                results.append(y if isinstance(y, torch.Tensor) else {"type": type(y).__name__})
        return {"results": results}

    agent.register({"module_table": module_table, "module_calls": module_calls, "call_modules": call_modules})
