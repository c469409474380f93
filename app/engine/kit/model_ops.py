"""The agent's requests on a candidate's model, shared by every interface: build one, load weights,
forward, backward, generate, batches. Each returns raw tensors and plain facts (see agent.py).

Models are built exactly as the judge says: the config class and model class named by the judge
(the interface's entry points), called with the judge's keyword arguments, seeded, cast, in the mode
asked. Casting touches floating-point tensors only: a complex buffer (rotary angles kept as a complex
`freqs_cis`, as Meta's llama does) stays complex, widened to complex128 with float64.
"""

import torch

_COMPLEX_FOR = {torch.float64: torch.complex128, torch.float32: torch.complex64}


def cast(model, dtype):
    """Floating tensors to `dtype`, complex ones to the matching complex dtype, integers untouched."""
    complex_dtype = _COMPLEX_FOR.get(dtype, torch.complex64)

    def convert(t):
        if t.is_floating_point():
            return t.to(dtype)
        if t.is_complex():
            return t.to(complex_dtype)
        return t

    return model._apply(convert)


def _dtype(name):
    return {"float64": torch.float64, "float32": torch.float32}[name]


def _described(model):
    params = [[name, p.detach(), bool(p.requires_grad)] for name, p in model.named_parameters()]
    buffers = [[name, b.detach()] for name, b in model.named_buffers()
               if b.is_floating_point() or b.is_complex()]
    return {"params": params, "buffers": buffers, "training": bool(model.training)}


def forward_call(model, tokens, targets=None, cache=None, start_pos=0):
    """model(tokens[, targets]) or, with a cache, model(tokens, cache=, start_pos=); (logits, loss)."""
    tokens = tokens.long().contiguous()
    if cache is not None:
        out = model(tokens, cache=cache, start_pos=start_pos)
    elif targets is not None:
        out = model(tokens, targets.long().contiguous())
    else:
        out = model(tokens)
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError("forward must return a (logits, loss) tuple")
    logits, loss = out
    if not isinstance(logits, torch.Tensor):
        raise TypeError("forward must return logits as a tensor")
    if loss is not None and not isinstance(loss, torch.Tensor):
        loss = torch.as_tensor(float(loss))
    return logits, loss


def register(agent):
    """Add the model requests to an Agent."""

    def build(entry, config, seed=0, dtype="float64", train=False):
        config_name, model_name = entry
        module = agent.mods["model"]
        cfg = getattr(module, config_name)(**config)
        torch.manual_seed(int(seed))
        model = getattr(module, model_name)(cfg)
        cast(model, _dtype(dtype))
        model.train(bool(train))
        return {"handle": agent.keep(model), **_described(model)}

    def describe_model(handle):
        return _described(agent.get(handle))

    def set_params(handle, params):
        model = agent.get(handle)
        own = dict(model.named_parameters())
        with torch.no_grad():
            for name, value in params.items():
                if name not in own:
                    raise KeyError(f"no parameter {name!r}")
                if tuple(own[name].shape) != tuple(value.shape):
                    raise ValueError(f"parameter {name!r} has shape {tuple(own[name].shape)}")
                own[name].copy_(value.to(own[name].dtype))
        return None

    def set_mode(handle, train):
        agent.get(handle).train(bool(train))
        return None

    def forward(handle, tokens, targets=None, train=None, no_grad=True, cache=None, start_pos=0):
        model = agent.get(handle)
        if train is not None:
            model.train(bool(train))
        cache_obj = agent.get(cache) if cache is not None else None
        if no_grad:
            with torch.no_grad():
                logits, loss = forward_call(model, tokens, targets, cache_obj, int(start_pos))
        else:
            logits, loss = forward_call(model, tokens, targets, cache_obj, int(start_pos))
        return {"logits": logits, "loss": loss}

    def grads(handle, tokens, targets, logits_grad=False, train=None):
        """One backward of the model's own loss: the loss, every parameter's gradient and, when asked,
        the gradient of the loss with respect to the returned logits."""
        model = agent.get(handle)
        if train is not None:
            model.train(bool(train))
        model.zero_grad(set_to_none=True)
        logits, loss = forward_call(model, tokens, targets)
        if loss is None or not loss.requires_grad:
            raise TypeError("the loss does not depend on the parameters")
        if logits_grad and logits.requires_grad:
            logits.retain_grad()
        loss.backward()
        out = {"loss": loss.detach(),
               "grads": {n: p.grad for n, p in model.named_parameters() if p.grad is not None}}
        if logits_grad:
            out["logits_grad"] = logits.grad if logits.requires_grad else None
        model.zero_grad(set_to_none=True)
        return out

    def generate(handle, tokens, max_new_tokens, seed=None, kwargs=None, train=None):
        model = agent.get(handle)
        if train is not None:
            model.train(bool(train))
        extra = dict(kwargs or {})
        if seed is not None:
            extra["generator"] = torch.Generator().manual_seed(int(seed))
        with torch.no_grad():
            out = model.generate(tokens.long().contiguous(), int(max_new_tokens), **extra)
        if not isinstance(out, torch.Tensor):
            raise TypeError("generate must return a tensor of token ids")
        return {"tokens": out}

    def new_cache(handle, batch_size):
        return {"cache": agent.keep(agent.get(handle).new_cache(int(batch_size)))}

    def get_batch(data, block_size, batch_size, seed, calls=1):
        """`calls` successive get_batch calls with one generator seeded by the judge."""
        g = torch.Generator().manual_seed(int(seed))
        xs, ys = [], []
        for _ in range(int(calls)):
            x, y = agent.mods["data"].get_batch(data.long(), int(block_size), int(batch_size), g)
            xs.append(x)
            ys.append(y)
        return {"x": xs, "y": ys}

    agent.register({
        "build": build, "describe": describe_model, "set_params": set_params, "set_mode": set_mode,
        "forward": forward, "grads": grads, "generate": generate, "new_cache": new_cache,
        "get_batch": get_batch,
    })
