"""Checks that look inside the model (attention rows, block residual, MLP, final norm) and loss
self-consistency. Each is "not applicable" when its probe found no structure to measure."""

from __future__ import annotations

from app.engine.measurements import Measurements, ProbeReadings
from app.engine.shared.verdicts import Fail, NotApplicable, close, num, probe


def _applicable(d: ProbeReadings, why: str) -> ProbeReadings:
    if not d.get("applicable"):
        raise NotApplicable(why)
    return d


def _rows(c: Measurements) -> ProbeReadings:
    return _applicable(probe(c, "attention_rows"), "no softmax over a (T, T) score matrix was observed")


def attention_rows_sum(c: Measurements, r: Measurements) -> str:
    d = _rows(c)
    if not num(d["row_error"]) <= 1e-6:  # loose enough for a float32 softmax
        raise Fail("the attention probabilities of a query position do not sum to 1 "
                   f"(off by up to {num(d['row_error']):.3g})")
    return "each query's attention probabilities sum to 1"


def attention_rows_causal(c: Measurements, r: Measurements) -> str:
    d = _rows(c)
    if not num(d["above_diagonal"]) == 0.0:
        raise Fail("the attention probabilities computed by softmax put weight on later positions "
                   f"(above the diagonal; largest {num(d['above_diagonal']):.3g})")
    return "softmax gives later positions exactly zero weight"


def block_identity(c: Measurements, r: Measurements) -> str:
    d = probe(c, "block_identity")
    if d.get("post_norm"):
        raise NotApplicable("the blocks normalise their own output (post-LN); the identity test is for pre-LN blocks")
    _applicable(d, "no chain of n_layer blocks carrying the residual stream was found")
    if not num(d["max_change"]) <= 1e-12 * (1.0 + num(d["scale"])):
        raise Fail("with every weight inside the blocks set to zero (silent attention and MLP), a block does not "
                   f"return its input unchanged (max change {num(d['max_change']):.3g}): "
                   "the residual stream is altered")
    return "a block with silent sublayers passes its input through"


def mlp_nonlinear(c: Measurements, r: Measurements) -> str:
    d = _applicable(probe(c, "mlp_nonlinearity"), "no position-wise MLP module was found in the blocks")
    if not num(d["nonlinear"]) > max(1e-9, 1e-6 * num(d["scale"])):
        raise Fail("the MLP is an affine map: mlp(a + b) = mlp(a) + mlp(b) - mlp(0) for random inputs")
    return "the MLP is nonlinear"


def final_norm(c: Measurements, r: Measurements) -> str:
    d = _applicable(probe(c, "final_norm"), "the logits were not traced to a linear output layer")
    if not num(d["spread"]) <= 0.01:
        raise Fail("the features entering the output layer differ in size from position to position "
                   f"(root-mean-square spread {num(d['spread']):.1%} at initialisation): they are not normalised")
    return "the output layer sees normalised features"


def _loss_part(c: Measurements, name: str) -> ProbeReadings:
    d = probe(c, "loss_invariances")[name]
    if "exception" in d:
        raise Fail(f"the code raised {d['exception']}")
    return d


def loss_own_target(c: Measurements, r: Measurements) -> str:
    d = _applicable(_loss_part(c, "alignment"), "the returned logits do not carry the loss's gradient")
    if d["positions"] == 0:
        raise Fail("the loss does not depend on the returned logits")
    if d["misaligned"]:
        raise Fail(f"at {d['misaligned']} of {d['positions']} positions, the loss's gradient favours a token "
                   "other than that position's target (every target of a sequence was the same token)")
    return "the loss at each position rewards that position's own target"


def loss_size_invariant(c: Measurements, r: Measurements) -> str:
    d = _loss_part(c, "sizes")
    base = num(d["base"])
    for key, what in (("double", "the same batch is repeated twice along the batch dimension"),
                      ("short", "the sequences are cut to 5 positions")):
        if not close(num(d[key]), base, rel=1e-9):
            raise Fail(f"with all weights zero (every position predicted alike) the loss is {base:.4f}, "
                       f"but {num(d[key]):.4f} when {what}: the loss grows with the number of positions")
    return "the loss is a mean: it does not grow with batch size or sequence length"


def loss_padding(c: Measurements, r: Measurements) -> str:
    d = _loss_part(c, "padding")
    padded, prefix = num(d["padded"]), num(d["prefix"])
    if not close(padded, prefix, rel=1e-9):
        raise Fail(f"with all weights zero, a batch whose last positions have target -1 has loss {padded:.4f}, "
                   f"but the same batch cut before those positions has loss {prefix:.4f}")
    return "positions with target -1 do not change the loss"
