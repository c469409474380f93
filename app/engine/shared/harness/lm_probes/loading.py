"""Build probe models in the agent and name the judge's fixed inputs.

The judge never imports the candidate's code: build_model asks the agent to construct the model through
the session's view of the interface (GptView, gpt-v1's GPTConfig/GPT, unless the session brings its
own: llama-v1's builds ModelArgs/Transformer from the same sizes) and returns a RemoteModel
(dojo_kit/remote.py).
"""

import torch
from dojo_kit.remote import ObservationError, RemoteModel
from dojo_kit.remote import build as remote_build


class GptView:
    """gpt-v1's construction: GPTConfig(vocab_size, block_size, n_layer, n_head, n_embd, dropout) -> GPT."""

    entry = ("GPTConfig", "GPT")

    @staticmethod
    def config(*, vocab_size, block_size, n_layer, n_head, n_embd, dropout):
        return {"vocab_size": vocab_size, "block_size": block_size, "n_layer": n_layer, "n_head": n_head,
                "n_embd": n_embd, "dropout": dropout}


def build_model(session, *, vocab_size=37, block_size=12, n_layer=2, n_head=4, n_embd=48,
                dropout=0.0, seed=0, dtype=torch.float64, train=False):
    """The candidate's model built in the agent exactly as the contract says, seeded, cast, in eval mode
    unless train."""
    view = getattr(session, "view", None) or GptView
    config = view.config(vocab_size=vocab_size, block_size=block_size, n_layer=n_layer, n_head=n_head,
                         n_embd=n_embd, dropout=dropout)
    return remote_build(session, view.entry, config, seed=seed, dtype=dtype, train=train)


def forward(model, idx, targets=None):
    """(logits, loss) of the model on these tokens (a RemoteModel checks the reply's shape)."""
    if not isinstance(model, RemoteModel):
        raise ObservationError("not a model built by the agent")
    return model(idx, targets)


def tokens(shape, *, high=37, seed=1):
    """Fixed random token ids."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, high, shape, generator=g)
