"""Training batches: random windows of a 1-D token stream with their next-token targets."""

import torch


def get_batch(data, block_size, batch_size, generator):
    """Return (x, y), each (batch_size, block_size); y[b, t] is the token after x[b, t]."""
    # a window starting at i needs data[i + block_size] for its last target
    ix = torch.randint(len(data) - block_size, (batch_size,), generator=generator)
    x = torch.stack([data[i : i + block_size] for i in ix])
    y = torch.stack([data[i + 1 : i + 1 + block_size] for i in ix])
    return x, y
