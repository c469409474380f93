"""The checks only gpt-v1's suite runs (the shared ones are in app/engine/shared/): the positional table
trains, attention scores are scaled by 1/sqrt(head size), generation crops its context to block_size."""

from __future__ import annotations

from app.engine.measurements import Measurements
from app.engine.shared.checks_generation import _case
from app.engine.shared.checks_structure import _applicable
from app.engine.shared.verdicts import Fail, num, probe


def positional_gradient(c: Measurements, r: Measurements) -> str:
    d = probe(c, "positional_gradient")
    for p in d["params"]:
        if p["requires_grad"] and num(p["grad"]) == 0.0:
            raise Fail(f"the positional parameter {p['name']} receives no gradient from the loss")
        if not p["requires_grad"] and num(p["norm"]) == 0.0:
            raise Fail(f"the positional table {p['name']} is all zeros and cannot be trained")
    for b in d["buffers"]:
        if num(b["norm"]) == 0.0:
            raise Fail(f"the positional table {b['name']} is all zeros and cannot be trained")
    return "positional parameters receive gradients"


def attention_scale(c: Measurements, r: Measurements) -> str:
    d = _applicable(probe(c, "attention_scale"),
                    "no attention call was observed whose scores could be traced to a query-key product")
    if d.get("score_diff") is not None and not num(d["score_diff"]) <= 1e-6:
        hs = int(d["head_size"])
        raise Fail(f"the attention scores are the query-key dot products times {num(d['scale']):.4g}, but the "
                   f"head size is {hs}, so the factor should be 1/sqrt({hs}) = {hs ** -0.5:.4g}")
    if d.get("output_diff") is not None and not num(d["output_diff"]) <= 1e-6:
        raise Fail("the attention module's output differs from scaled dot-product attention over its own "
                   f"query, key and value projections (relative difference {num(d['output_diff']):.3g})")
    return "attention scores are scaled by 1/sqrt(head size)"


def crops_context(c: Measurements, r: Measurements) -> str:
    case = _case(c, "crop")
    if case["max_context"] is not None and case["max_context"] > 12:
        raise Fail(f"generating past block_size fed the model {case['max_context']} tokens (block_size is 12)")
    return "generation runs past block_size with a cropped context"
