"""Build probe models through the llama-v1 interface (ModelArgs, Transformer)."""

import math

import torch

# The test model of BUG_CATALOG.md section H: every size distinct, two query heads per key/value head.
V, DIM, N_HEADS, N_KV_HEADS, N_LAYERS, MAX_SEQ_LEN = 37, 48, 4, 2, 2, 12


def hidden_dim_for(dim):
    """The SwiGLU width llama uses: 8/3 of dim, rounded up to a multiple of 16 (128 for dim 48)."""
    return 16 * math.ceil(8 * dim / 3 / 16)


def model_args(model_mod, *, vocab_size=V, dim=DIM, n_layers=N_LAYERS, n_heads=N_HEADS, n_kv_heads=None,
               max_seq_len=MAX_SEQ_LEN, hidden_dim=None, norm_eps=1e-5, rope_theta=10000.0, dropout=0.0):
    """ModelArgs built with exactly the contract's keyword arguments."""
    return model_mod.ModelArgs(
        dim=dim, n_layers=n_layers, n_heads=n_heads,
        n_kv_heads=n_kv_heads if n_kv_heads is not None else max(1, n_heads // 2),
        vocab_size=vocab_size, max_seq_len=max_seq_len,
        hidden_dim=hidden_dim if hidden_dim is not None else hidden_dim_for(dim),
        norm_eps=norm_eps, rope_theta=rope_theta, dropout=dropout)


def build_llama(model_mod, *, seed=0, dtype=torch.float64, train=False, **sizes):
    """Transformer(ModelArgs(...)), seeded, cast, in eval mode unless train."""
    args = model_args(model_mod, **sizes)
    torch.manual_seed(seed)
    model = model_mod.Transformer(args)
    model.to(dtype)
    model.train(train)
    return model


def call(model, tokens, targets=None, cache=None, start_pos=0):
    """model(tokens, ...) with contiguous inputs (llama2.c's targets.view(-1) fails on a slice);
    checks that it returned (logits, loss)."""
    tokens = tokens.contiguous()
    if cache is None:
        out = model(tokens, targets.contiguous()) if targets is not None else model(tokens)
    else:
        out = model(tokens, cache=cache, start_pos=start_pos)
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError("forward must return a (logits, loss) tuple")
    return out
