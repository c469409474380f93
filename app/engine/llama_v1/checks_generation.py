"""Checks on generate() that llama-v1 words differently from gpt-v1 (max_seq_len), and top-p."""

from __future__ import annotations

from app.engine.measurements import Measurements, ProbeReadings
from app.engine.shared.checks_generation import _case
from app.engine.shared.verdicts import Fail, num, probe

PROB_TOL = 1e-6


def crops_context(c: Measurements, r: Measurements) -> str:
    case = _case(c, "crop")
    if case["max_context"] is not None and case["max_context"] > 12:
        raise Fail(f"generating past max_seq_len fed the model {case['max_context']} tokens at once "
                   "(max_seq_len is 12)")
    return "generation runs past max_seq_len"


def _nucleus(c: Measurements, name: str, p: float, what: str) -> ProbeReadings:
    case = probe(c, "top_p")[name]
    if "exception" in case:
        raise Fail(f"generate with top_p={p}{what} raised {case['exception']}")
    if case["shape"] != case["expected_shape"]:
        raise Fail(f"generate with top_p={p} returned shape {tuple(case['shape'])}, "
                   f"expected {tuple(case['expected_shape'])}")
    if case["calls"] == 0 or case["compared"] == 0:
        raise Fail(f"with top_p={p}: no sampling distribution was observed (torch.multinomial was not called)")
    for kept, expected in zip(case["kept"], case["expected_kept"], strict=True):
        if kept != expected:
            raise Fail(f"with top_p={p}{what} the sampler keeps {kept} token(s), but the smallest set of most likely "
                       f"tokens whose probability reaches {p} has {expected}")
    if not num(case["prob_diff"]) <= PROB_TOL:
        raise Fail(f"with top_p={p}{what} the kept tokens' probabilities are not their renormalised "
                   f"probabilities (max difference {num(case['prob_diff']):.3g})")
    return case


def top_p_nucleus(c: Measurements, r: Measurements) -> str:
    _nucleus(c, "p0.9", 0.9, "")
    _nucleus(c, "p0.5-peaked", 0.5, " and one token more likely than 0.5")
    return "top-p keeps the smallest set of most likely tokens whose probability reaches p"


def top_p_one(c: Measurements, r: Measurements) -> str:
    _nucleus(c, "p1.0", 1.0, "")
    return "top_p=1.0 samples from the whole distribution"
