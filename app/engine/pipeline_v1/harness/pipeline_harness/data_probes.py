"""data.py through the judge's inputs: collate's three tensors against the contract's, split's documents,
batches' order. The agent returns what the candidate's functions returned; everything is compared here.

Token ids stand for themselves: documents are distinct, each ends in EOS, and the pad id is chosen by the
probe (once different from EOS, once equal to it, as contract 1c allows).
"""

import torch
from dojo_kit.remote import ObservationError

from .probe_model import collate as reference_collate

EOS, PAD = 1, 0
KEYS = ("input_ids", "attention_mask", "labels")


def _documents(n, *, first=2, seed=0):
    """n distinct documents of varied lengths (3..12, n < 900), each ending in EOS; token ids 2..31 inside."""
    g = torch.Generator().manual_seed(seed)
    docs = []
    for i in range(n):
        length = 3 + int(torch.randint(0, 10, (1,), generator=g))
        body = (torch.randint(first, 32, (length - 1,), generator=g)).tolist()
        docs.append([first + i % 30, first + i // 30, *body[2:], EOS])  # the first two tokens name it
    return docs


def _tensors(value):
    if not isinstance(value, dict) or any(not isinstance(value.get(k), torch.Tensor) for k in KEYS):
        raise ObservationError("collate did not return a dict with input_ids, attention_mask and labels tensors")
    return {k: value[k] for k in KEYS}


def _compare(got, want):
    """Per key: None when equal, else the first differing (row, position) and the two values."""
    out = {}
    for k in KEYS:
        g, w = got[k], want[k]
        if tuple(g.shape) != tuple(w.shape):
            out[k] = {"shape": list(g.shape), "expected_shape": list(w.shape)}
            continue
        diff = (g.long() != w).nonzero()
        out[k] = None if not len(diff) else {"at": [int(v) for v in diff[0]], "count": int(len(diff)),
                                              "got": int(g[tuple(diff[0])]), "expected": int(w[tuple(diff[0])])}
    return out


def collate(session):
    """collate on examples of different lengths, with a pad id unlike EOS and with pad id = EOS:
    each key against the contract's tensors, and what the labels hold at padding, at the last real
    token and at each example's final EOS."""
    examples = [[5, 9, 7, EOS], [3, 4, 6, 8, 10, 12, 14, EOS], [11, EOS]]
    cases = {}
    for name, pad in (("pad-unlike-eos", PAD), ("pad-is-eos", EOS)):
        got = _tensors(session.call("p_collate", examples=examples, pad_id=pad))
        want = reference_collate(examples, pad)
        cmp = _compare(got, want)
        labels, ok_shape = got["labels"], cmp["labels"] is None or "shape" not in cmp["labels"]
        eos_targets = pad_targets = next_wrong = None
        if ok_shape:
            # positions whose next token is a real token before the final EOS: must be that token
            next_wrong = sum(int(labels[b, t]) != e[t + 1] for b, e in enumerate(examples) for t in range(len(e) - 2))
            # positions whose next token is an example's final EOS: must be EOS targets
            eos_targets = [int(labels[b, len(e) - 2]) for b, e in enumerate(examples)]
            # positions from the last real token on (its next position is padding): must be ignored
            pad_targets = sorted({int(labels[b, t]) for b, e in enumerate(examples)
                                  for t in range(len(e) - 1, labels.size(1))})
        cases[name] = {"diff": cmp, "next_wrong": next_wrong, "eos_targets": eos_targets, "pad_targets": pad_targets,
                       "pad_id": pad}
    return {"cases": cases, "eos": EOS}


def split(session, n=40, fraction=0.25):
    """split(documents, fraction, seed) on n distinct documents: disjoint, covering, sized, repeatable,
    and different for another seed."""
    docs = _documents(n, seed=7)
    keyed = {tuple(d): i for i, d in enumerate(docs)}

    def ids(part, what):
        if not isinstance(part, list) or not all(isinstance(d, list) for d in part):
            raise ObservationError(f"split's {what} part is not a list of documents")
        return [keyed.get(tuple(int(t) for t in d), -1) for d in part]

    def run(seed):
        out = session.call("p_split", documents=docs, val_fraction=fraction, seed=seed)
        if not (isinstance(out, list) and len(out) == 2):
            raise ObservationError("split did not return (train, val)")
        return ids(out[0], "train"), ids(out[1], "val")

    train, val = run(3)
    again = run(3)
    other = run(4)
    return {"n": n, "fraction": fraction, "train": train, "val": val,
            "repeatable": again == (train, val), "other_seed_differs": sorted(other[1]) != sorted(val)}


def batches(session, n=10, batch_size=4):
    """batches(examples, batch_size, epoch, seed) over three epochs and a repeat: each epoch's order of
    example indices (every example once per epoch), repeatable for (epoch, seed), new each epoch."""
    examples = _documents(n, seed=9)
    keyed = {tuple(e): i for i, e in enumerate(examples)}

    def order(epoch, seed=5):
        out = session.call("p_batches", examples=examples, batch_size=batch_size, epoch=epoch, seed=seed)
        if not isinstance(out, list) or not all(isinstance(b, list) for b in out):
            raise ObservationError("batches did not return a list of batches")
        return {"sizes": [len(b) for b in out],
                "order": [keyed.get(tuple(int(t) for t in e), -1) if isinstance(e, list) else -1
                          for b in out for e in b]}

    epochs = [order(e) for e in range(3)]
    return {"n": n, "batch_size": batch_size, "epochs": epochs, "repeat": order(1) == epochs[1]}
