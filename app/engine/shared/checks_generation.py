"""Checks on generate(): the sampling distribution, temperature, top-k, greedy, seeding."""

from __future__ import annotations

from app.engine.measurements import Measurements, ProbeReadings
from app.engine.shared.verdicts import Fail, num, probe

PROB_TOL = 1e-6


def _case(c: Measurements, name: str) -> ProbeReadings:
    case = probe(c, "generation")[name]
    if "exception" in case:
        raise Fail(f"generate raised {case['exception']}")
    if case["shape"] != case["expected_shape"]:
        raise Fail(f"generate returned shape {tuple(case['shape'])}, expected {tuple(case['expected_shape'])}")
    if not case["prefix_kept"]:
        raise Fail("generate does not return the prompt followed by the new tokens")
    return case


def _distribution(case: ProbeReadings, what: str) -> None:
    if case["calls"] == 0 or case["compared"] == 0:
        raise Fail(f"{what}: no sampling distribution was observed (torch.multinomial was not called)")
    if not num(case["prob_diff"]) <= PROB_TOL:
        raise Fail(f"{what}: the sampling probabilities differ from the softmax of the last position's "
                   f"logits (max difference {num(case['prob_diff']):.3g})")


def samples_last_position(c: Measurements, r: Measurements) -> str:
    _distribution(_case(c, "plain"), "at temperature 1")
    return "samples come from the last position's distribution"


def temperature(c: Measurements, r: Measurements) -> str:
    for name, t in (("t0.5", 0.5), ("t2", 2.0)):
        _distribution(_case(c, name), f"at temperature {t}")
    return "temperature divides the logits"


def top_k(c: Measurements, r: Measurements) -> str:
    case = _case(c, "topk5")
    _distribution(case, "with top_k=5")
    if case["max_nonzero"] != 5:
        raise Fail(f"with top_k=5, {case['max_nonzero']} tokens have non-zero probability")
    return "top-k keeps exactly k tokens"


def greedy(c: Measurements, r: Measurements) -> str:
    case = _case(c, "greedy")
    if not case["tokens_are_argmax"]:
        raise Fail("with top_k=1 the generated token is not the most likely next token")
    if case["calls"] and not num(case["prob_diff"]) <= PROB_TOL:
        raise Fail("with top_k=1 the sampling distribution is not concentrated on the most likely token")
    return "top_k=1 picks the most likely token"


def seeded_reproducible(c: Measurements, r: Measurements) -> str:
    if not probe(c, "seeded_generation")["equal"]:
        raise Fail("two generations in eval mode with the same seeded generator differ")
    return "seeded generation is reproducible"
