"""The judge's view of a model's modules, from the agent's raw facts (agent_structure.py): which modules
there are, the calls one forward pass made to them, and calls of chosen modules on the judge's inputs.
"""

import torch
from dojo_kit.client import CandidateError
from dojo_kit.remote import ObservationError

from .records import Table

MAX_MODULES = 5000
MAX_CALLS = 20000


class Module:
    """One module of the candidate's model, by its number in model.modules() order."""

    def __init__(self, number, facts):
        if not isinstance(facts, dict) or not isinstance(facts.get("names"), list):
            raise ObservationError("a module's facts are not a record")
        self.number = number
        self.names = [str(n) for n in facts["names"]]
        self.name = self.names[0] if self.names else ""
        self.cls = facts.get("class")
        self.class_name = str(facts.get("class_name") or "")
        self.leaf = bool(facts.get("leaf"))
        self.has_matrix = bool(facts.get("has_matrix"))
        self.params = [str(p) for p in facts.get("params") or []]
        self.descendants = {int(d) for d in facts.get("descendants") or [] if isinstance(d, int)}
        self.module_list = bool(facts.get("module_list"))
        linear = facts.get("linear")
        self.linear = linear if isinstance(linear, dict) else None
        n_head = facts.get("n_head")
        self.n_head = n_head if isinstance(n_head, int) and not isinstance(n_head, bool) else None


def modules_from(facts):
    if not isinstance(facts, list) or len(facts) > MAX_MODULES:
        raise ObservationError("the module facts are not a list")
    return [Module(k, f) for k, f in enumerate(facts)]


def module_table(model):
    """Every module of a RemoteModel (number 0 is the model itself)."""
    model.sync()
    return modules_from(model.session.call("module_table", handle=model.handle).get("modules"))


def module_calls(model, idx):
    """(modules, [(module, input, output)]) for every submodule call of one forward pass on idx, in the
    order the calls finish; input and output are tensors (the same object where the candidate passed
    one call's output to the next) or None."""
    mode = model.sync()
    record = model.session.call("module_calls", handle=model.handle, tokens=idx, **mode)
    modules = modules_from(record.get("modules"))
    table = Table(record.get("tensors"))
    raw = record.get("calls")
    if not isinstance(raw, list) or len(raw) > MAX_CALLS:
        raise ObservationError("the module calls are not a list")
    calls = []
    for c in raw:
        k = c.get("module") if isinstance(c, dict) else None
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(modules):
            raise ObservationError("a module call names no module")
        calls.append((modules[k], table.tensor(c.get("input")), table.tensor(c.get("output"))))
    return modules, calls


class Refused:
    """A module that raised TypeError on the judge's input: it wants other arguments (another design)."""

    def __init__(self, message):
        self.message = message


def call_chains(model, items):
    """For each (chain of modules, x): the chain applied to x in the agent. Each result is a tensor,
    Refused (a TypeError), or None (not a tensor); a module that raised anything else raises
    CandidateError when its result is read (read_result), as the call itself would have."""
    mode = model.sync()
    calls = [{"chain": [m.number for m in chain], "x": x} for chain, x in items]
    results = model.session.call("call_modules", handle=model.handle, calls=calls, **mode).get("results")
    if not isinstance(results, list) or len(results) != len(calls):
        raise ObservationError("the module calls did not all come back")
    return results


def read_result(result):
    if isinstance(result, torch.Tensor):
        return result
    if isinstance(result, dict) and "error" in result:
        raise CandidateError(str(result["error"])[:600])
    if isinstance(result, dict) and "type_error" in result:
        return Refused(str(result["type_error"]))
    return None
