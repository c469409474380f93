"""Probes on data.get_batch: shapes, seeding, next-token targets, window coverage."""

import torch


def get_batch_targets(mods):
    """Classify y against x on data = arange(N), where a token's value is its position."""
    get_batch = mods["data"].get_batch
    data = torch.arange(64, dtype=torch.long)
    x, y = get_batch(data, 8, 6, torch.Generator().manual_seed(0))
    x2, _ = get_batch(data, 8, 6, torch.Generator().manual_seed(0))
    out = {"x_shape": list(x.shape), "y_shape": list(y.shape),
           "long": x.dtype == torch.long and y.dtype == torch.long,
           "seeded": bool(x.shape == x2.shape and torch.equal(x, x2))}
    if x.shape == y.shape:
        delta = (y - x).flatten().tolist()
        out["offsets"] = sorted({int(d) for d in delta})[:5]
        out["contiguous_x"] = bool((x[:, 1:] - x[:, :-1] == 1).all()) if x.size(1) > 1 else True
    return out


def get_batch_coverage(mods, block_size=8, extra=3):
    """With len(data) = block_size + extra, every start 0..extra-1 must be drawn, none beyond."""
    get_batch = mods["data"].get_batch
    data = torch.arange(block_size + extra, dtype=torch.long)
    g = torch.Generator().manual_seed(1)
    starts = set()
    for _ in range(60):
        x, _ = get_batch(data, block_size, 4, g)
        starts.update(int(s) for s in x[:, 0].tolist())
    return {"starts": sorted(starts), "expected": list(range(extra))}
