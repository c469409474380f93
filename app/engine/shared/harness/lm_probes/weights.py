"""Deterministic 'reference weights': a fill that depends only on parameter names and shapes.

The equivalence tier loads these into both the solution (when measuring the reference) and the
candidate's model, so the solution's code never has to enter the sandbox.
"""

import zlib

import torch


def signature(model):
    """[name, shape] of every parameter, in registration order."""
    return [[name, list(p.shape)] for name, p in model.named_parameters()]


def fill_reference_weights(model):
    """Overwrite every parameter with values seeded by its name (LayerNorm-style gains near 1)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
            noise = torch.randn(p.shape, generator=g, dtype=torch.float64).to(p.dtype)
            if p.dim() == 1 and name.endswith("weight"):
                p.copy_(1.0 + 0.1 * noise)
            else:
                p.copy_(0.1 * noise)
