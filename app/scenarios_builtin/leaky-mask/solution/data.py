"""Character-level tokenisation and batching for language-model training."""

import torch


class CharTokenizer:
    """Maps each distinct character of a text to an integer id and back."""

    def __init__(self, text):
        self.chars = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.chars)}
        self.itos = {i: ch for i, ch in enumerate(self.chars)}

    @property
    def vocab_size(self):
        return len(self.chars)

    def encode(self, text):
        return torch.tensor([self.stoi[ch] for ch in text], dtype=torch.long)

    def decode(self, ids):
        return "".join(self.itos[int(i)] for i in ids)


def get_batch(data, block_size, batch_size, generator):
    """Sample batch_size random windows of block_size tokens and their next-token targets."""
    ix = torch.randint(len(data) - block_size, (batch_size,), generator=generator)
    x = torch.stack([data[i : i + block_size] for i in ix])  # (B, T)
    y = torch.stack([data[i + 1 : i + 1 + block_size] for i in ix])  # (B, T)
    return x, y
