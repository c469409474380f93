"""Build probe models in the agent through the llama-v1 interface (ModelArgs, Transformer).

The judge never imports the candidate's code: build_llama asks the agent to construct the model with
the contract's keyword arguments and returns a RemoteModel (dojo_kit/remote.py). LlamaView is how
The shared probes (lm_probes), which llama-v1 reuses, build a llama model from their gpt-sized arguments.
"""

import math

import torch
from dojo_kit.remote import build as remote_build

# The test model of BUG_CATALOG.md section H: every size distinct, two query heads per key/value head.
V, DIM, N_HEADS, N_KV_HEADS, N_LAYERS, MAX_SEQ_LEN = 37, 48, 4, 2, 2, 12
ENTRY = ("ModelArgs", "Transformer")


def hidden_dim_for(dim):
    """The SwiGLU width llama uses: 8/3 of dim, rounded up to a multiple of 16 (128 for dim 48)."""
    return 16 * math.ceil(8 * dim / 3 / 16)


def model_args(*, vocab_size=V, dim=DIM, n_layers=N_LAYERS, n_heads=N_HEADS, n_kv_heads=None,
               max_seq_len=MAX_SEQ_LEN, hidden_dim=None, norm_eps=1e-5, rope_theta=10000.0, dropout=0.0):
    """ModelArgs' keyword arguments, exactly the contract's."""
    return {"dim": dim, "n_layers": n_layers, "n_heads": n_heads,
            "n_kv_heads": n_kv_heads if n_kv_heads is not None else max(1, n_heads // 2),
            "vocab_size": vocab_size, "max_seq_len": max_seq_len,
            "hidden_dim": hidden_dim if hidden_dim is not None else hidden_dim_for(dim),
            "norm_eps": norm_eps, "rope_theta": rope_theta, "dropout": dropout}


class LlamaView:
    """gpt-v1's probes on a llama-v1 model: GPTConfig's sizes -> ModelArgs, GPT -> Transformer."""

    entry = ENTRY

    @staticmethod
    def config(*, vocab_size, block_size, n_layer, n_head, n_embd, dropout):
        return model_args(vocab_size=vocab_size, dim=n_embd, n_layers=n_layer, n_heads=n_head,
                          max_seq_len=block_size, dropout=dropout)


def build_llama(session, *, seed=0, dtype=torch.float64, train=False, **sizes):
    """Transformer(ModelArgs(...)) built in the agent, seeded, cast, in eval mode unless train."""
    return remote_build(session, ENTRY, model_args(**sizes), seed=seed, dtype=dtype, train=train)
