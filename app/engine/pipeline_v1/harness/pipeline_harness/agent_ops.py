"""pipeline-v1's requests, answered in the sandbox, in the process that imports data.py and train.py.

Every request calls the candidate's functions on inputs the judge chose, with the grader's own model
(probe_model.ProbeLM) or the scenario's, and returns what came out: tensors, lists, numbers, the
gradients the optimizer was handed at each step, the flags the model saw. Nothing is judged here; the
judge (the *_probes.py modules, another process) computes every reference and decides.
"""

import inspect
import math
import os
import tempfile

import torch
from dojo_kit.agent import describe

from . import probe_model

_DTYPES = {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16}


def _plain(value, depth=0):
    """What a candidate's function returned, as the wire carries it: tensors, numbers, strings, lists and
    dicts of them; anything else is described by its type."""
    if depth > 6:
        return {"unserialisable": "nested too deep"}
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().contiguous()
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    return {"unserialisable": type(value).__name__}


def _number(value):
    """A number a candidate's function returned (a float, an int, a one-element tensor), else None."""
    if isinstance(value, torch.Tensor):
        return float(value) if value.numel() == 1 else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _named(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}


class StepSpy:
    """Wraps one optimizer's step: before each step the gradients it is handed and each group's lr."""

    def __init__(self, model, optimizer):
        self.calls = []
        names = {id(p): n for n, p in model.named_parameters()}
        step = optimizer.step

        def spied_step(*args, **kwargs):
            grads = {names.get(id(p), f"unnamed.{i}"): (p.grad.detach().clone() if p.grad is not None else None)
                     for group in optimizer.param_groups for i, p in enumerate(group["params"])}
            self.calls.append({"grads": {n: g for n, g in grads.items() if g is not None},
                               "none": sorted(n for n, g in grads.items() if g is None),
                               "lr": [float(g.get("lr", 0.0)) for g in optimizer.param_groups]})
            return step(*args, **kwargs)

        optimizer.step = spied_step


def register(agent):
    data, train = agent.mods.get("data"), agent.mods.get("train")

    def build(seed=0, dropout=0.0, record=False, dtype="float64"):
        model = probe_model.build(seed=seed, dtype=_DTYPES[dtype], dropout=float(dropout), record=bool(record))
        return {"handle": agent.keep(model)}

    def params(handle):
        return _named(agent.get(handle))

    def set_params(handle, values):
        model = agent.get(handle)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if name in values:
                    p.copy_(values[name])
        return None

    def collate(examples, pad_id):
        return _plain(data.collate([list(map(int, e)) for e in examples], int(pad_id)))

    def split(documents, val_fraction, seed):
        return _plain(data.split([list(map(int, d)) for d in documents], float(val_fraction), int(seed)))

    def batches(examples, batch_size, epoch, seed):
        return _plain(data.batches([list(map(int, e)) for e in examples], int(batch_size), int(epoch), int(seed)))

    def get_lr(schedules):
        out = []
        for warmup, max_steps, max_lr, min_lr in schedules:
            try:
                out.append({"lr": [float(train.get_lr(s, int(warmup), int(max_steps), float(max_lr), float(min_lr)))
                                   for s in range(int(max_steps) + 6)]})
            except Exception as exc:
                out.append({"error": describe(exc, agent.candidate_dir)})
        return out

    def build_optimizer(handle, lr, weight_decay, betas):
        """The candidate's optimizer for the model: its class, and each group's parameters (by name),
        lr, weight decay and betas."""
        model = agent.get(handle)
        optimizer = train.build_optimizer(model, float(lr), float(weight_decay), betas=tuple(map(float, betas)))
        names = {id(p): n for n, p in model.named_parameters()}
        groups = [{"params": [names.get(id(p), "?") for p in g["params"]],
                   "lr": float(g.get("lr", float("nan"))), "weight_decay": float(g.get("weight_decay", 0.0)),
                   "betas": [float(b) for b in g.get("betas", ())]} for g in optimizer.param_groups]
        cls = type(optimizer)
        return {"optimizer": agent.keep(optimizer), "class": f"{cls.__module__}.{cls.__qualname__}", "groups": groups}

    def optimizer_step(handle, optimizer, grads):
        """One step of the optimizer with these gradients set: the parameters after it."""
        model, opt = agent.get(handle), agent.get(optimizer)
        for name, p in model.named_parameters():
            p.grad = grads[name].to(p.dtype).clone() if name in grads else None
        opt.step()
        return _named(model)

    def train_step(handle, micro_batches, grad_clip, lr=0.1, optimizer=None, scaler_scale=None,
                   amp_dtype=None, inf_grad=None, training=True):
        """The candidate's train_step on these micro-batches with the optimizer named (or the grader's
        SGD(lr), no momentum), a GradScaler("cpu") of that initial scale and an autocast dtype when given,
        and an infinite gradient on one parameter when asked: the gradients handed to each optimizer
        step, what it returned, the parameters after, the scaler's scale after."""
        model = agent.get(handle)
        model.train(bool(training))
        opt = agent.get(optimizer) if optimizer is not None else torch.optim.SGD(model.parameters(), lr=float(lr))
        if optimizer is not None:
            for g in opt.param_groups:
                g["lr"] = float(lr)
        spy = StepSpy(model, opt)
        kwargs = {"grad_clip": float(grad_clip)}
        scaler = None
        if scaler_scale is not None:
            scaler = torch.amp.GradScaler("cpu", init_scale=float(scaler_scale))
            kwargs["scaler"] = scaler
        if amp_dtype is not None:
            kwargs["amp_dtype"] = _DTYPES[amp_dtype]
        hook = None
        if inf_grad is not None:
            target = dict(model.named_parameters())[inf_grad]
            hook = target.register_hook(lambda g: torch.full_like(g, float("inf")))
        try:
            batches = [{k: v.long().clone() for k, v in mb.items()} for mb in micro_batches]
            returned = train.train_step(model, opt, batches, **kwargs)
        finally:
            if hook is not None:
                hook.remove()
        return {"steps": spy.calls, "returned": _number(returned), "params": _named(model),
                "scale": float(scaler.get_scale()) if scaler is not None else None,
                "forward_calls": list(getattr(model, "calls", []))}

    def evaluate(handle, batches):
        """evaluate(model, batches) on a model in training mode: its value, the mode after, and each
        forward call's (training, grad enabled, mask passed)."""
        model = agent.get(handle)
        model.train()
        model.calls = []
        value = train.evaluate(model, [{k: v.long().clone() for k, v in b.items()} for b in batches])
        return {"value": _number(value), "training_after": bool(model.training), "calls": list(model.calls)}

    checkpoints = tempfile.mkdtemp(prefix="ckpt-")

    def save_checkpoint(handle, optimizer, name, step):
        path = os.path.join(checkpoints, str(name))
        train.save_checkpoint(path, agent.get(handle), agent.get(optimizer), int(step))
        return None

    def load_checkpoint(handle, optimizer, name):
        step = train.load_checkpoint(os.path.join(checkpoints, str(name)), agent.get(handle), agent.get(optimizer))
        return int(step) if isinstance(step, (int, torch.Tensor)) and not isinstance(step, bool) else _plain(step)

    def seed(value):
        torch.manual_seed(int(value))
        return None

    def rng_state():
        return torch.get_rng_state()

    def optimizer_state(handle, optimizer):
        """Every tensor of the optimizer's per-parameter state, as 'param name.key'."""
        model, opt = agent.get(handle), agent.get(optimizer)
        names = {id(p): n for n, p in model.named_parameters()}
        out = {}
        for p, state in opt.state.items():
            for key, value in state.items():
                if isinstance(value, torch.Tensor):
                    out[f"{names.get(id(p), '?')}.{key}"] = value.detach().clone().double()
                elif isinstance(value, (int, float)):
                    out[f"{names.get(id(p), '?')}.{key}"] = torch.tensor(float(value), dtype=torch.float64)
        return out

    def binds(items):
        """For each [module, name, n_args, keyword names]: is it callable, and why a call with that many
        positional arguments and those keywords would not bind (None: it would)."""
        out = []
        for module, name, n_args, kwargs in items:
            func = getattr(agent.mods.get(str(module)), str(name), None)
            if not callable(func):
                out.append({"callable": False, "why": None})
                continue
            try:
                inspect.signature(func).bind(*([None] * int(n_args)), **{str(k): None for k in kwargs})
                why = None
            except TypeError as exc:
                why = str(exc)[:400]
            except ValueError:  # no signature to inspect: let the call decide
                why = None
            out.append({"callable": True, "why": why})
        return out

    class Run:
        """The grader's training loop over the candidate's pieces (run_probes.py composes it)."""

        def __init__(self, model, documents, batch_size, max_lr, seed, pad_id):
            self.model, self.batch_size, self.seed, self.pad_id, self.max_lr = model, batch_size, seed, pad_id, max_lr
            self.train_docs, _ = data.split(documents, 0.1, seed)
            self.optimizer = train.build_optimizer(model, max_lr, 0.1, betas=(0.9, 0.95))
            self.epoch, self.queue = 0, []

        def next_batch(self):
            while not self.queue:
                self.queue = list(data.batches(self.train_docs, self.batch_size, self.epoch, self.seed))
                self.epoch += 1
            return self.queue.pop(0)

    def run_start(handle, documents, batch_size, max_lr, seed, pad_id):
        run = Run(agent.get(handle), [list(map(int, d)) for d in documents], int(batch_size), float(max_lr),
                  int(seed), int(pad_id))
        return agent.keep(run)

    def run_steps(run, first, last, steps, accum, warmup, min_lr):
        """Steps first..last-1: each with get_lr's lr on every group and `accum` collated micro-batches."""
        r = agent.get(run)
        r.model.train()
        losses, lrs = [], []
        for step in range(int(first), int(last)):
            lr = float(train.get_lr(step, int(warmup), int(steps), r.max_lr, float(min_lr)))
            for group in r.optimizer.param_groups:
                group["lr"] = lr
            micro = [data.collate(r.next_batch(), r.pad_id) for _ in range(int(accum))]
            value = train.train_step(r.model, r.optimizer, micro, grad_clip=1.0)
            losses.append(_number(value))
            lrs.append(lr)
        return {"losses": losses, "lrs": lrs}

    agent.register({
        "p_run_start": run_start, "p_run_steps": run_steps,
        "p_binds": binds, "p_build": build, "p_params": params, "p_set_params": set_params, "p_collate": collate,
        "p_split": split,        "p_batches": batches, "p_get_lr": get_lr, "p_build_optimizer": build_optimizer,
        "p_optimizer_step": optimizer_step, "p_train_step": train_step, "p_evaluate": evaluate,
        "p_save_checkpoint": save_checkpoint, "p_load_checkpoint": load_checkpoint, "p_seed": seed,
        "p_rng_state": rng_state, "p_optimizer_state": optimizer_state,
    })
