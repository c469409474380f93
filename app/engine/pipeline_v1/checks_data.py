"""Checks on data.py: collate's tensors and labels (padding, EOS, the shift), split's documents and
batches' order, each against the contract (CONTRACTS.md 1c) as the judge computed it."""

from __future__ import annotations

from app.engine.measurements import Measurements, ProbeReadings
from app.engine.shared.verdicts import Fail, probe

CASE_WORDS = {"pad-unlike-eos": "with a pad id unlike EOS", "pad-is-eos": "with the pad id equal to the EOS id"}


def _collate_cases(c: Measurements) -> dict[str, ProbeReadings]:
    return dict(probe(c, "collate")["cases"])


def collate_shapes(c: Measurements, r: Measurements) -> str:
    for name, case in _collate_cases(c).items():
        for key in ("input_ids", "attention_mask"):
            diff = case["diff"][key]
            if diff is not None:
                if "shape" in diff:
                    raise Fail(f"collate ({CASE_WORDS[name]}) returns {key} of shape {tuple(diff['shape'])}, "
                               f"expected {tuple(diff['expected_shape'])}: (batch, longest example)")
                raise Fail(f"collate ({CASE_WORDS[name]}) returns {key} that differs from the examples right-padded "
                           f"({diff['count']} entries; at row {diff['at'][0]}, position {diff['at'][1]}: "
                           f"{diff['got']} where {diff['expected']} is expected)")
        labels = case["diff"]["labels"]
        if labels is not None and "shape" in labels:
            raise Fail(f"collate ({CASE_WORDS[name]}) returns labels of shape {tuple(labels['shape'])}, expected "
                       f"{tuple(labels['expected_shape'])}")
    return "collate right-pads the examples, with attention_mask 1 on real tokens"


def labels_next_token(c: Measurements, r: Measurements) -> str:
    for name, case in _collate_cases(c).items():
        if case["next_wrong"] is None:
            raise Fail(f"collate ({CASE_WORDS[name]}) returns no labels of the batch's shape")
        if case["next_wrong"]:
            raise Fail(f"collate ({CASE_WORDS[name]}) labels {case['next_wrong']} real positions with something other "
                       "than the next token: each position's label must be the token that follows it (the shift "
                       "happens once)")
    return "each real position's label is the next token"


def padding_ignored(c: Measurements, r: Measurements) -> str:
    for name, case in _collate_cases(c).items():
        found = [int(v) for v in case["pad_targets"] or []]
        if case["pad_targets"] is None or found != [-100]:
            raise Fail(f"collate ({CASE_WORDS[name]}) gives positions whose next position is padding the labels "
                       f"{found}: they must be -100, so padding never enters the loss")
    return "positions followed by padding are ignored by the loss (-100)"


def eos_is_a_target(c: Measurements, r: Measurements) -> str:
    cases = _collate_cases(c)
    eos = int(probe(c, "collate")["eos"])
    for name, case in cases.items():
        targets = case["eos_targets"]
        if targets is None or any(int(t) != eos for t in targets):
            raise Fail(f"collate ({CASE_WORDS[name]}) does not make each document's final EOS a target (labels "
                       f"{targets} where {eos} is expected): padding must follow from the lengths, not from "
                       "comparing ids, or the model never learns to stop")
    return "each document's final EOS is a target, even when the pad id is the EOS id"


def split_disjoint(c: Measurements, r: Measurements) -> str:
    d = probe(c, "split")
    train, val, n = list(d["train"]), list(d["val"]), int(d["n"])
    if -1 in train or -1 in val:
        raise Fail("split returns documents that are not among those it was given")
    both = sorted(set(train) & set(val))
    if both:
        raise Fail(f"split puts {len(both)} of {n} documents in both training and validation: validation must be "
                   "documents the model never trains on")
    if sorted(train + val) != list(range(n)):
        raise Fail(f"split returns {len(train) + len(val)} documents (with repeats or gaps) for {n} given: together "
                   "the two parts must hold every document once")
    want = float(d["fraction"]) * n
    if abs(len(val) - want) > 1:
        raise Fail(f"split puts {len(val)} of {n} documents in validation for val_fraction {d['fraction']}")
    return "split divides the documents into disjoint training and validation parts of the right size"


def split_repeatable(c: Measurements, r: Measurements) -> str:
    d = probe(c, "split")
    if not d["repeatable"]:
        raise Fail("split gives different parts for the same seed")
    if not d["other_seed_differs"]:
        raise Fail("split gives the same validation documents for another seed: the seed must mix them")
    return "split is the same for the same seed and changes with it"


def batches_cover_epoch(c: Measurements, r: Measurements) -> str:
    d = probe(c, "batches")
    n, size = int(d["n"]), int(d["batch_size"])
    for epoch, e in enumerate(d["epochs"]):
        if sorted(e["order"]) != list(range(n)):
            raise Fail(f"batches for epoch {epoch} hold {len(e['order'])} examples for {n} given (some twice, some "
                       "never, or not the given ones): an epoch shows every example exactly once")
        if any(s > size or s < 1 for s in e["sizes"]):
            raise Fail(f"batches for epoch {epoch} have sizes {e['sizes']} for batch_size {size}")
    return "every epoch shows every example exactly once, in batches of at most batch_size"


def batches_reshuffle(c: Measurements, r: Measurements) -> str:
    d = probe(c, "batches")
    orders = [e["order"] for e in d["epochs"]]
    if not d["repeat"]:
        raise Fail("batches gives another order for the same epoch and seed")
    if orders[0] == orders[1] or orders[1] == orders[2]:
        raise Fail("batches gives the same order in consecutive epochs: the shuffle must change every epoch")
    return "the order is the same for the same (epoch, seed) and new each epoch"
