"""gpt-v1's positional-table probe: positional parameters (found by name, nanoGPT's wpe) must receive
gradients from the loss; positional buffers must not be all zeros. Judge side, like every probe."""

import re

from lm_probes.loading import build_model, tokens
from lm_probes.model_probes import BLOCK

POSITIONAL_NAME = re.compile(r"wpe|pos", re.IGNORECASE)


def positional_gradient(session):
    """Positional parameters (by name) must train; positional buffers must not be all zeros."""
    model = build_model(session)
    grads = model.grads(tokens((3, BLOCK), seed=6), tokens((3, BLOCK), seed=7))["grads"]
    params = []
    for name, p in model.named_parameters():
        if POSITIONAL_NAME.search(name):
            grad = float(grads[name].abs().max()) if name in grads and grads[name].numel() else 0.0
            params.append({"name": name, "requires_grad": p.requires_grad, "grad": grad,
                           "norm": float(p.detach().abs().max())})
    buffers = []
    for name, b in model.named_buffers():
        if POSITIONAL_NAME.search(name) and b.is_floating_point():
            buffers.append({"name": name, "norm": float(b.abs().max())})
    return {"params": params, "buffers": buffers}
