"""The data pipeline of a tiny language model: documents of token ids (each ending in its EOS token),
collated into right-padded batches, split into training and validation by document, and drawn in a
shuffled order that changes every epoch."""

import random

import torch

IGNORE_INDEX = -100  # labels the loss skips


def collate(examples, pad_id):
    """Right-pad a list of documents into input_ids, attention_mask and labels, each (B, T)."""
    T = max(len(e) for e in examples)
    input_ids = torch.full((len(examples), T), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((len(examples), T), dtype=torch.long)
    for b, tokens in enumerate(examples):
        input_ids[b, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
        attention_mask[b, : len(tokens)] = 1
    # the label shift, once, here: position t learns the token at t + 1 ...
    labels = torch.full_like(input_ids, IGNORE_INDEX)
    labels[:, :-1] = input_ids[:, 1:]
    # ... where t + 1 holds a real token. Padding is told by the mask, never by its id: pad_id may be the
    # EOS id, and each document's final EOS is a target the model must learn (or it never stops).
    labels[:, :-1][attention_mask[:, 1:] == 0] = IGNORE_INDEX
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


def split(documents, val_fraction, seed):
    """Training and validation documents: one shuffle of the indices, the first part for validation.
    Both parts come from the same permutation, so no document lands in both."""
    order = list(range(len(documents)))
    random.Random(seed).shuffle(order)
    n_val = round(val_fraction * len(documents))
    val = [documents[i] for i in order[:n_val]]
    train = [documents[i] for i in order[n_val:]]
    return train, val


def batches(examples, batch_size, epoch, seed):
    """Every example once, in batches of batch_size (the last may be smaller), in an order that is the
    same for the same (epoch, seed) and new each epoch."""
    g = torch.Generator().manual_seed(seed * 1_000_003 + epoch)
    order = torch.randperm(len(examples), generator=g).tolist()
    return [[examples[i] for i in order[k : k + batch_size]] for k in range(0, len(order), batch_size)]
