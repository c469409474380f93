"""generate() under observation (runs in the sandbox; generation_probes.py compares in the judge).

torch.multinomial is replaced while the candidate's generate runs by a recorder that keeps every
weight tensor it is handed and answers with the most likely token, so generation is deterministic and
every sampling distribution is seen; a forward pre-hook keeps the length of every context the model
is fed. The judge normalises the weights and compares them with its own softmax of the model's logits.
"""

import torch

_real_multinomial = torch.multinomial
_real_tensor_multinomial = torch.Tensor.multinomial


class SamplingRecorder:
    """Context manager that records every weight tensor handed to torch.multinomial (as float64 rows)."""

    def __init__(self):
        self.weights = []

    def _record(self, probs, num_samples=1, replacement=False, *, generator=None, out=None):
        raw = probs.detach().double().clone()
        self.weights.append(raw.reshape(-1, raw.size(-1)) if raw.dim() > 1 else raw.unsqueeze(0))
        p = raw
        total = p.sum(dim=-1, keepdim=True)
        if bool((p >= 0).all()) and bool((total > 0).all()):
            # torch.multinomial draws in proportion to its weights: the most likely token of the weights
            # normalised, whether or not the sampler normalised them itself
            p = p / total
        choice = p.argmax(dim=-1, keepdim=True)
        return choice.expand(*choice.shape[:-1], num_samples).clone()

    def __enter__(self):
        torch.multinomial = self._record
        torch.Tensor.multinomial = lambda probs, *a, **k: self._record(probs, *a, **k)
        return self

    def __exit__(self, *exc):
        torch.multinomial = _real_multinomial
        torch.Tensor.multinomial = _real_tensor_multinomial
        return False


def register(agent):
    """Add the observed generation request to an Agent."""

    def generate_recorded(handle, tokens, max_new_tokens, kwargs=None, seed=0, train=None):
        """The candidate's generate(tokens, max_new_tokens, **kwargs, generator=seeded) with the recorder
        on: its output, the weights handed to torch.multinomial and the context length of every forward
        call."""
        model = agent.get(handle)
        if train is not None:
            model.train(bool(train))
        lengths = []
        hook = model.register_forward_pre_hook(lambda m, args: lengths.append(int(args[0].shape[1])))
        try:
            with SamplingRecorder() as recorder:
                out = model.generate(tokens.long().contiguous(), int(max_new_tokens), **dict(kwargs or {}),
                                     generator=torch.Generator().manual_seed(int(seed)))
        finally:
            hook.remove()
        return {"tokens": out if isinstance(out, torch.Tensor) else {"type": type(out).__name__},
                "weights": recorder.weights, "lengths": lengths}

    agent.register({"generate_recorded": generate_recorded})
