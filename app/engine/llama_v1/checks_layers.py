"""Checks inside the model: rotary positions, RMSNorm, the SwiGLU gate, gradient flow. Each is "not
applicable" when its probe found no structure to measure."""

from __future__ import annotations

from app.engine.measurements import Measurements, ProbeReadings
from app.engine.shared.verdicts import Fail, NotApplicable, num, probe


def _applicable(d: ProbeReadings, why: str) -> ProbeReadings:
    if not d.get("applicable"):
        raise NotApplicable(why)
    return d


def _rotary(c: Measurements) -> ProbeReadings:
    return _applicable(probe(c, "rotary"), "no query-key product of attention was observed")


def rotation_keeps_norm(c: Measurements, r: Measurements) -> str:
    d = _rotary(c)
    if not num(d["norm_diff"]) <= 1e-5:
        raise Fail("on a sequence of one repeated token, the queries or keys that attention uses change size from "
                   f"position to position (by up to {num(d['norm_diff']):.2%}): the positional transform of q and k "
                   "is not a rotation")
    return "the positional transform of queries and keys keeps their size"


def rotary_frequencies(c: Measurements, r: Measurements) -> str:
    d = _rotary(c)
    if not num(d["rotation_diff"]) <= 1e-4:
        raise Fail("on a sequence of one repeated token, the query or key at position t is not position 0's "
                   "rotated by t times the frequencies theta^(-2i/head_dim) of its channel pairs (relative "
                   f"difference {num(d['rotation_diff']):.3g}, in the closest pair layout)")
    return "queries and keys are rotated by position times the rotary frequencies"


def _norms(c: Measurements) -> ProbeReadings:
    return _applicable(probe(c, "norms"), "no normalisation module of the residual stream was found")


def rmsnorm(c: Measurements, r: Measurements) -> str:
    d = _norms(c)
    if num(d["rms_min"]) < 0.5 or num(d["rms_max"]) > 2.0:
        raise Fail("at initialisation a normalisation layer's output has a root-mean-square of "
                   f"{num(d['rms_min']):.3g} to {num(d['rms_max']):.3g} per position instead of 1")
    if not num(d["big_diff"]) <= 1e-5:
        raise Fail("at initialisation a normalisation layer's output differs from x / sqrt(mean(x^2) + eps) "
                   f"over each position's features (relative difference {num(d['big_diff']):.3g}, on inputs "
                   "whose features have a non-zero mean)")
    return "normalisation layers divide each position's features by their root-mean-square"


def rmsnorm_eps(c: Measurements, r: Measurements) -> str:
    d = _norms(c)
    if not d["zero_finite"]:
        raise Fail("a normalisation layer turns a position whose features are all zero into NaN or infinity")
    if not num(d["tiny_diff"]) <= 1e-4:
        raise Fail("on features of size 1e-3, a normalisation layer's output differs from "
                   f"x / sqrt(mean(x^2) + eps) (relative difference {num(d['tiny_diff']):.3g}): "
                   "eps does not enter where it should")
    return "eps keeps small and zero features finite, as in x / sqrt(mean(x^2) + eps)"


def swiglu_gate(c: Measurements, r: Measurements) -> str:
    d = _applicable(probe(c, "gate"), "no gated MLP (two projections of its input, then a projection back) was found")
    if not num(d["diff"]) <= 1e-6:
        raise Fail("inside the MLP, what enters the output projection is not silu(gate) * value of the two "
                   f"projections of its input (relative difference {num(d['diff']):.3g})")
    return "the MLP multiplies a SiLU gate with a linear value"


def parameters_receive_gradient(c: Measurements, r: Measurements) -> str:
    d = probe(c, "parameter_gradients")
    if d["n_starved"]:
        names = ", ".join(d["starved"])
        raise Fail(f"{d['n_starved']} trainable parameter(s) receive no gradient from the loss ({names}): "
                   "they never affect the output")
    return f"all {d['parameters']} trainable parameters receive a gradient"


def attention_scale(c: Measurements, r: Measurements) -> str:
    d = _applicable(probe(c, "attention_scale"),
                    "no attention call was observed whose scores could be traced to a query-key product")
    # 1e-4, not gpt-v1's 1e-6: llama code computes its softmax in float32 (Meta's does) even in a float64
    # model, and the wrong scales of the catalog are off by a factor of 2 or more
    if not num(d["score_diff"]) <= 1e-4:
        hs = int(d["head_size"])
        raise Fail(f"the attention scores are the query-key dot products times {num(d['scale']):.4g}, but the "
                   f"head size is {hs}, so the factor should be 1/sqrt({hs}) = {hs ** -0.5:.4g}")
    return "attention scores are scaled by 1/sqrt(head_dim)"


def rotary_frequency_set(c: Measurements, r: Measurements) -> str:
    d = _rotary(c)
    if not num(d["frequency_diff"]) <= 1e-4:
        raise Fail("on a sequence of one repeated token, some channel of the queries or keys does not turn "
                   "from position to position at any of the rotary frequencies theta^(-2i/head_dim) (relative "
                   f"residual {num(d['frequency_diff']):.3g}): the inverse frequencies are not the standard ones")
    return "every channel of the queries and keys turns at one of the rotary frequencies"


def values_carry_no_position(c: Measurements, r: Measurements) -> str:
    d = _rotary(c)
    diff = d.get("repeat_logits_diff")
    if diff is None:
        raise NotApplicable("the logits of the repeated token were not observed")
    if not num(diff) <= 1e-5:
        raise Fail("a sequence of one repeated token gives different logits at different positions (relative "
                   f"difference {num(diff):.3g}), although attention only averages that token's values: the "
                   "values carry their position (rotary positions belong on queries and keys only)")
    return "a repeated token gives the same logits at every position"
