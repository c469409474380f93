"""Probes on data.get_batch: shapes, seeding, next-token targets, window coverage.

The agent calls the candidate's get_batch with a generator seeded by the judge and returns the batches;
everything below is computed here."""

import torch
from dojo_kit.remote import ObservationError, tensor


def _batches(session, data, block_size, batch_size, seed, calls=1):
    out = session.call("get_batch", data=data, block_size=block_size, batch_size=batch_size, seed=seed,
                       calls=calls)
    xs, ys = out.get("x"), out.get("y")
    if not isinstance(xs, list) or not isinstance(ys, list) or len(xs) != calls or len(ys) != calls:
        raise ObservationError("get_batch's batches did not come back")
    return ([tensor(x, "get_batch's x") for x in xs], [tensor(y, "get_batch's y") for y in ys])


def get_batch_targets(session):
    """Classify y against x on data = arange(N), where a token's value is its position."""
    data = torch.arange(64, dtype=torch.long)
    (x,), (y,) = _batches(session, data, 8, 6, seed=0)
    (x2,), _ = _batches(session, data, 8, 6, seed=0)
    out = {"x_shape": list(x.shape), "y_shape": list(y.shape),
           "long": x.dtype == torch.long and y.dtype == torch.long,
           "seeded": bool(x.shape == x2.shape and torch.equal(x, x2))}
    if x.shape == y.shape:
        delta = (y.long() - x.long()).flatten().tolist()
        out["offsets"] = sorted({int(d) for d in delta})[:5]
        out["contiguous_x"] = bool((x[:, 1:] - x[:, :-1] == 1).all()) if x.dim() == 2 and x.size(1) > 1 else True
    return out


def get_batch_coverage(session, block_size=8, extra=3):
    """With len(data) = block_size + extra, every start 0..extra-1 must be drawn, none beyond."""
    data = torch.arange(block_size + extra, dtype=torch.long)
    xs, _ = _batches(session, data, block_size, 4, seed=1, calls=60)
    starts = set()
    for x in xs:
        starts.update(int(s) for s in x.reshape(x.size(0), -1)[:, 0].tolist())
    return {"starts": sorted(starts), "expected": list(range(extra))}
