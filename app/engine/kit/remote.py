"""The judge's view of the candidate's code: a session with the agent and models that live in it.

A RemoteModel keeps a local copy of the model's parameters. Probes read and change that copy as they
would a module's (zero every weight, scale the matrices, add noise, load name-seeded weights); before
the next request on the model, the parameters changed here (seen by the tensors' version counters) are
sent to the agent. Calling the model sends the judge's tokens and brings back the raw logits and loss;
every derived value (differences, cross-entropies, invariances) is computed here, in the judge.
"""

import torch

from .client import CandidateError


class ObservationError(Exception):
    """An answer from the agent that is not what the request asks for (reported like a candidate fault)."""


def tensor(value, what):
    """`value` when it is a tensor, else ObservationError naming what was expected."""
    if not isinstance(value, torch.Tensor):
        raise ObservationError(f"{what} is not a tensor")
    return value


def number(value, what):
    """A float from a Python number or a one-element tensor."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.reshape(()))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise ObservationError(f"{what} is not a number")


class Session:
    """One agent: the candidate's module names and the requests on them."""

    def __init__(self, client, modules, *, view=None):
        self.client = client
        self.modules = frozenset(modules)
        # How the interface builds a model from gpt-sized arguments (each interface's loading.py).
        self.view = view

    def __contains__(self, name):
        return name in self.modules

    def call(self, op, **args):
        return self.client.call(op, **args)


class RemoteModel:
    """A model built by the agent, with its parameters mirrored here (see the module docstring)."""

    def __init__(self, session, built):
        self.session = session
        self.handle = built["handle"]
        self._params, self._versions = {}, {}
        for name, value, requires_grad in built["params"]:
            p = torch.nn.Parameter(tensor(value, f"parameter {name}").clone(), requires_grad=bool(requires_grad))
            self._params[str(name)] = p
            self._versions[str(name)] = p._version
        self._buffers = {str(name): tensor(value, f"buffer {name}") for name, value in built["buffers"]}
        self.training = bool(built.get("training"))
        self._mode_sent = self.training

    # what probes read like a module's
    def named_parameters(self):
        return iter(list(self._params.items()))

    def parameters(self):
        return iter(list(self._params.values()))

    def named_buffers(self):
        return iter(list(self._buffers.items()))

    def train(self, mode=True):
        self.training = bool(mode)
        return self

    def eval(self):
        return self.train(False)

    def sync(self):
        """Send the parameters changed here since the last request, and the mode."""
        changed = {n: p.detach() for n, p in self._params.items() if p._version != self._versions[n]}
        if changed:
            self.session.call("set_params", handle=self.handle, params=changed)
            for name in changed:
                self._versions[name] = self._params[name]._version
        return {"train": self.training}

    def forward(self, tokens, targets=None, *, no_grad=True, cache=None, start_pos=0):
        """(logits, loss) of the candidate's forward on these tokens (loss None when it returned none)."""
        mode = self.sync()
        out = self.session.call("forward", handle=self.handle, tokens=tokens, targets=targets,
                                no_grad=no_grad, cache=cache, start_pos=start_pos, **mode)
        logits = tensor(out.get("logits"), "the logits")
        loss = out.get("loss")
        if loss is not None:
            loss = tensor(loss, "the loss")
        return logits, loss

    __call__ = forward

    def grads(self, tokens, targets, *, logits_grad=False):
        """The loss, each parameter's gradient ({name: tensor}) and, when asked, d loss / d logits."""
        mode = self.sync()
        out = self.session.call("grads", handle=self.handle, tokens=tokens, targets=targets,
                                logits_grad=logits_grad, **mode)
        grads = out.get("grads") or {}
        if not isinstance(grads, dict):
            raise ObservationError("the gradients are not a mapping")
        return {
            "loss": number(out.get("loss"), "the loss"),
            "grads": {str(n): tensor(g, f"the gradient of {n}") for n, g in grads.items()},
            "logits_grad": out.get("logits_grad"),
        }

    def generate(self, tokens, max_new_tokens, *, seed=None, **kwargs):
        """The candidate's generate on these tokens (a generator seeded with `seed` when given)."""
        mode = self.sync()
        out = self.session.call("generate", handle=self.handle, tokens=tokens, max_new_tokens=max_new_tokens,
                                seed=seed, kwargs=kwargs, **mode)
        return tensor(out.get("tokens"), "the generated tokens")

    def new_cache(self, batch_size):
        return self.session.call("new_cache", handle=self.handle, batch_size=batch_size)["cache"]

    def refresh(self):
        """Fetch the agent's current parameters (after a training request changed them there)."""
        built = self.session.call("describe", handle=self.handle)
        for name, value, _ in built["params"]:
            if str(name) in self._params:
                with torch.no_grad():
                    self._params[str(name)].copy_(tensor(value, f"parameter {name}"))
                self._versions[str(name)] = self._params[str(name)]._version
        self.training = bool(built.get("training"))
        return self


def build(session, entry, config, *, seed=0, dtype=torch.float64, train=False):
    """A RemoteModel: the agent builds entry[1](entry[0](**config)) seeded with `seed`, cast to `dtype`."""
    name = {torch.float64: "float64", torch.float32: "float32"}[dtype]
    built = session.call("build", entry=list(entry), config=dict(config), seed=seed, dtype=name, train=train)
    return RemoteModel(session, built)


__all__ = ["CandidateError", "ObservationError", "RemoteModel", "Session", "build", "number", "tensor"]
