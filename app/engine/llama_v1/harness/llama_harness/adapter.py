"""gpt-v1's probes run on a llama-v1 model through stand-ins for the candidate's modules.

gpt-v1's probes build a model with build_model(mods["model"], vocab_size=..., block_size=..., n_layer=...,
n_head=..., n_embd=..., dropout=...), call model(idx[, targets]) and model.generate(idx, n, temperature=,
top_k=, generator=), and call train_step(model, optimizer, x, y, grad_clip=); llama-v1's forward and
generate accept those calls as they are. What differs is construction and train_step's micro-batches.
"""

from .loading import hidden_dim_for


class ModelModule:
    """Stands in for model.py: GPTConfig(...) -> the candidate's ModelArgs, GPT(args) -> its Transformer."""

    def __init__(self, model_mod):
        self._mod = model_mod

    def GPTConfig(self, *, vocab_size, block_size, n_layer, n_head, n_embd, dropout=0.0):
        return self._mod.ModelArgs(
            dim=n_embd, n_layers=n_layer, n_heads=n_head, n_kv_heads=max(1, n_head // 2),
            vocab_size=vocab_size, max_seq_len=block_size, hidden_dim=hidden_dim_for(n_embd),
            norm_eps=1e-5, rope_theta=10000.0, dropout=dropout)

    def GPT(self, args):
        return self._mod.Transformer(args)


class TrainModule:
    """Stands in for train.py: one (x, y) batch is a step of one micro-batch."""

    def __init__(self, train_mod):
        self._mod = train_mod

    def __getattr__(self, name):  # evaluate and anything else: the candidate's own
        return getattr(self._mod, name)

    def train_step(self, model, optimizer, x, y, grad_clip=1.0):
        return self._mod.train_step(model, optimizer, [(x.contiguous(), y.contiguous())], grad_clip=grad_clip)


def gpt_mods(mods):
    """The candidate's modules as gpt-v1's probes expect them."""
    out = dict(mods)
    out["model"] = ModelModule(mods["model"])
    if "train" in mods:
        out["train"] = TrainModule(mods["train"])
    return out
