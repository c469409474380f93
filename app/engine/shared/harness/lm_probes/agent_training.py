"""The candidate's train.py and training loops, run on the judge's request (runs in the sandbox).

Every request returns raw observations: the value train_step or evaluate returned, the gradients the
optimizer was handed at each step (a spy on optimizer.step), the mode of every forward call, the losses
a training loop reported. The judge compares them with its own gradients and forwards
(train_probes.py, tiny_run.py).
"""

import math

import torch

from .agent_optim import AdamW


def _plain(value):
    """A returned value as it can cross: a tensor, a number, None, else its type's name."""
    if value is None or isinstance(value, (torch.Tensor, bool, int, float)):
        return value
    return {"type": type(value).__name__}


class StepSpy:
    """Wraps optimizer.step to record the gradients the optimizer was handed at each call."""

    def __init__(self, model, optimizer):
        self.model, self.optimizer, self.calls = model, optimizer, []
        self._step = optimizer.step
        optimizer.step = self._spy

    def _spy(self, *args, **kwargs):
        self.calls.append({n: (p.grad.detach().clone() if p.grad is not None else None)
                           for n, p in self.model.named_parameters() if p.requires_grad})
        return self._step(*args, **kwargs)


def own_step(model, optimizer, x, y, grad_clip=1.0):
    """The harness's training step, for models without train.py and for the leak probe. The batch goes
    to the model as get_batch made it (not made contiguous or cast on the way): the run must meet the
    candidate's batches as the candidate's own loop would."""
    out = model(x, y)
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError("forward must return a (logits, loss) tuple")
    loss = out[1]
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    return float(loss.detach())


class Trainer:
    """A model, its AdamW, the step function and (for the candidate's get_batch) data and a generator."""

    def __init__(self, agent, model, lr, use_train_step, data=None, block_size=None, batch_size=None, seed=None):
        self.agent, self.model = agent, model
        self.optimizer = AdamW(model.parameters(), lr=float(lr))
        self.step_fn = agent.mods["train"].train_step if use_train_step else own_step
        self.data = data.long() if data is not None else None
        self.block_size, self.batch_size = block_size, batch_size
        self.generator = torch.Generator().manual_seed(int(seed)) if seed is not None else None

    def run(self, steps=None, batches=None, grad_clip=1.0):
        """Steps on the judge's batches, or `steps` steps on the candidate's get_batch; the losses the
        step function reported, up to the first that is not finite."""
        self.model.train(True)
        if batches is None:
            get_batch = self.agent.mods["data"].get_batch
            batches = (get_batch(self.data, int(self.block_size), int(self.batch_size), self.generator)
                       for _ in range(int(steps)))
        losses = []
        for x, y in batches:
            loss = float(self.step_fn(self.model, self.optimizer, x, y, grad_clip=grad_clip))
            losses.append(loss)
            if not math.isfinite(loss):
                break
        return losses


def register(agent):
    """Add the training requests to an Agent."""

    def optimizer(handle, lr):
        """The harness's AdamW over the model's parameters, with a spy on its step."""
        model = agent.get(handle)
        opt = AdamW(model.parameters(), lr=float(lr))
        return {"optimizer": agent.keep(StepSpy(model, opt))}

    def train_step(handle, optimizer, x, y, grad_clip):
        """train.train_step(model, optimizer, x, y, grad_clip=...): what it returned and the gradients of
        every optimizer step it made."""
        model, spy = agent.get(handle), agent.get(optimizer)
        before = len(spy.calls)
        returned = agent.mods["train"].train_step(model, spy.optimizer, x.long(), y.long(), grad_clip=grad_clip)
        return {"returned": _plain(returned), "step_calls": len(spy.calls), "used": spy.calls[before:]}

    def evaluate(handle, batches, train):
        """train.evaluate(model, batches) with the model in the given mode first: what it returned, the
        mode of every forward call, the mode after."""
        model = agent.get(handle)
        model.train(bool(train))
        modes = []
        hook = model.register_forward_pre_hook(lambda m, args: modes.append(bool(m.training)))
        try:
            value = agent.mods["train"].evaluate(model, [(x.long(), y.long()) for x, y in batches])
        finally:
            hook.remove()
        return {"value": _plain(value), "modes": modes, "training_after": bool(model.training)}

    def trainer(handle, lr, use_train_step, data=None, block_size=None, batch_size=None, seed=None):
        model = agent.get(handle)
        return {"trainer": agent.keep(Trainer(agent, model, lr, use_train_step, data, block_size, batch_size, seed))}

    def train(trainer, steps=None, batches=None, grad_clip=1.0):
        return {"losses": agent.get(trainer).run(steps, batches, grad_clip)}

    agent.register({"optimizer": optimizer, "train_step": train_step, "evaluate": evaluate,
                    "trainer": trainer, "train": train})
