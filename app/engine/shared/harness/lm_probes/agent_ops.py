"""Requests every language-model agent answers beyond the kit's model requests (dojo_kit/model_ops.py).

Runs in the sandbox, in the candidate's process: every request returns raw observations (tensors,
plain facts) for inputs the judge chose; the judge computes the measurements.
"""

import torch
import torch.nn as nn
from dojo_kit.model_ops import forward_call

from .agent_optim import AdamW


def register(agent):
    """Add these requests to an Agent (every interface's main.py does)."""

    def embedding_jacobian(handle, tokens, vocab_size):
        """d logits[b, t].sum() / d (output of the token embedding) for every (b, t): (B, T, B, T, C).
        The token embedding is the nn.Embedding with vocab_size rows whose output is (B, T, C)."""
        model = agent.get(handle)
        captured = []

        def keep(module, inputs, output):
            if isinstance(output, torch.Tensor) and output.requires_grad:
                output.retain_grad()
                captured.append(output)

        hooks = [m.register_forward_hook(keep) for m in model.modules()
                 if isinstance(m, nn.Embedding) and m.num_embeddings == vocab_size]
        if not hooks:
            return {"applicable": False}
        try:
            logits, _ = forward_call(model, tokens)
        finally:
            for h in hooks:
                h.remove()
        emb = [c for c in captured if c.dim() == 3 and tuple(c.shape[:2]) == tuple(tokens.shape)]
        if not emb:
            return {"applicable": False}
        emb = emb[0]
        B, T = tokens.shape
        rows = []
        for b in range(B):
            for t in range(T):
                emb.grad = None
                logits[b, t].sum().backward(retain_graph=True)
                rows.append(emb.grad.detach().clone() if emb.grad is not None else torch.zeros_like(emb))
        return {"applicable": True, "jacobian": torch.stack(rows).reshape(B, T, *emb.shape)}

    def fit_batch(handle, x, y, steps, lr):
        """`steps` steps of the harness's own AdamW on one batch, through the model's own loss."""
        model = agent.get(handle)
        opt = AdamW([p for p in model.parameters() if p.requires_grad], lr=float(lr))
        for _ in range(int(steps)):
            _, loss = forward_call(model, x, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        return None

    def forwards(handle, inputs, targets=None, train=None):
        """The logits of one forward without gradients for each of several token tensors, with its
        targets when given (one request where a probe needs many forwards on inputs it knows)."""
        model = agent.get(handle)
        if train is not None:
            model.train(bool(train))
        targets = targets if targets is not None else [None] * len(inputs)
        with torch.no_grad():
            return {"logits": [forward_call(model, x, y)[0] for x, y in zip(inputs, targets, strict=True)]}

    agent.register({"embedding_jacobian": embedding_jacobian, "fit_batch": fit_batch, "forwards": forwards})
