"""A small llama-style character model: RMSNorm, rotary positions, SwiGLU, grouped-query attention
and a KV cache for generation."""

from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F


@dataclass
class ModelArgs:
    dim: int = 128
    n_layers: int = 4
    n_heads: int = 4
    n_kv_heads: int = 2
    vocab_size: int = 65
    max_seq_len: int = 64
    hidden_dim: int = 352
    norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    dropout: float = 0.0


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        # each position's vector scaled to unit root-mean-square; unlike LayerNorm no mean is subtracted
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


def rope_table(head_dim, max_seq_len, theta):
    """e^(i * position * frequency) for every position and channel pair: (max_seq_len, head_dim // 2)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))  # (hd/2,)
    angles = torch.outer(torch.arange(max_seq_len, dtype=torch.float64), inv_freq)  # (max_seq_len, hd/2)
    return torch.polar(torch.ones_like(angles), angles)  # complex128


def apply_rope(x, rot):
    """Rotate each (even, odd) channel pair of x (B, T, nh, hd), read as one complex number, by its
    position's angle; rot (T, hd/2) holds e^(i * angle)."""
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))  # (B, T, nh, hd/2)
    return torch.view_as_real(pairs * rot.to(pairs.dtype)[:, None, :]).flatten(-2)  # (B, T, nh, hd)


class KVCache:
    """Per layer, the rotated keys and the values of the positions seen so far, (B, n_kv, S, hd) each."""

    def __init__(self, n_layers):
        self.keys = [None] * n_layers
        self.values = [None] * n_layers

    def update(self, layer, k, v):
        """Append this call's keys and values; return every cached position's."""
        if self.keys[layer] is not None:
            k = torch.cat((self.keys[layer], k), dim=2)
            v = torch.cat((self.values[layer], v), dim=2)
        self.keys[layer], self.values[layer] = k, v
        return k, v


class Attention(nn.Module):
    def __init__(self, args, layer_id):
        super().__init__()
        assert args.dim % args.n_heads == 0 and args.n_heads % args.n_kv_heads == 0
        self.layer_id = layer_id
        self.n_heads = args.n_heads
        self.n_kv_heads = args.n_kv_heads
        self.head_dim = args.dim // args.n_heads
        self.dropout = args.dropout
        self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, args.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.dim, args.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)
        self.resid_dropout = nn.Dropout(args.dropout)

    def forward(self, x, rot, cache):
        B, T, C = x.size()
        q = self.wq(x).view(B, T, self.n_heads, self.head_dim)
        k = self.wk(x).view(B, T, self.n_kv_heads, self.head_dim)
        v = self.wv(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)  # (B, n_kv, T, hd)
        # rotary positions on queries and keys only: scores then depend on relative positions alone
        q = apply_rope(q, rot).transpose(1, 2)  # (B, nh, T, hd)
        k = apply_rope(k, rot).transpose(1, 2)  # (B, n_kv, T, hd)
        if cache is not None:
            k, v = cache.update(self.layer_id, k, v)  # (B, n_kv, S, hd): cached positions, then these
        S = k.size(2)
        # query t is key position S - T + t: it sees keys 0 .. S - T + t (the mask's bottom-right corner
        # is the diagonal, whatever the number of cached positions)
        mask = torch.ones(T, S, dtype=torch.bool, device=x.device).tril(diagonal=S - T)
        # grouped queries: each key/value head serves n_heads // n_kv_heads consecutive query heads
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True,
                                           dropout_p=self.dropout if self.training else 0.0)  # (B, nh, T, hd)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.wo(y))


class FeedForward(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.w1 = nn.Linear(args.dim, args.hidden_dim, bias=False)
        self.w2 = nn.Linear(args.hidden_dim, args.dim, bias=False)
        self.w3 = nn.Linear(args.dim, args.hidden_dim, bias=False)
        self.dropout = nn.Dropout(args.dropout)

    def forward(self, x):
        # SwiGLU: a SiLU-activated gate times a linear value
        return self.dropout(self.w2(F.silu(self.w1(x)) * self.w3(x)))


class TransformerBlock(nn.Module):
    def __init__(self, args, layer_id):
        super().__init__()
        self.attention_norm = RMSNorm(args.dim, args.norm_eps)
        self.attention = Attention(args, layer_id)
        self.ffn_norm = RMSNorm(args.dim, args.norm_eps)
        self.feed_forward = FeedForward(args)

    def forward(self, x, rot, cache):
        h = x + self.attention(self.attention_norm(x), rot, cache)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        self.dropout = nn.Dropout(args.dropout)
        self.layers = nn.ModuleList(TransformerBlock(args, i) for i in range(args.n_layers))
        self.norm = RMSNorm(args.dim, args.norm_eps)
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)
        self.tok_embeddings.weight = self.output.weight  # weight tying
        # a fixed table, not a parameter: kept in double precision whatever dtype the model is cast to
        self.rope = rope_table(args.dim // args.n_heads, args.max_seq_len, args.rope_theta)
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def new_cache(self, batch_size):
        """An empty cache for generating batch_size sequences."""
        return KVCache(self.args.n_layers)

    def forward(self, tokens, targets=None, cache=None, start_pos=0):
        B, T = tokens.size()
        assert start_pos + T <= self.args.max_seq_len, "positions past max_seq_len have no rotary angle"
        h = self.dropout(self.tok_embeddings(tokens))  # (B, T, dim)
        # the rotations of absolute positions start_pos .. start_pos + T - 1
        rot = self.rope[start_pos : start_pos + T]
        for layer in self.layers:
            h = layer(h, rot, cache)
        logits = self.output(self.norm(h))  # (B, T, vocab_size)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def _next_logits(self, idx, cache, start, use_cache):
        """Last-position logits for idx; with a cache only the new token goes through the model."""
        window = self.args.max_seq_len
        if not use_cache:
            return self(idx[:, -window:])[0][:, -1, :], None, 0
        if cache is None or idx.size(1) - start > window:
            # no rotary angle past max_seq_len: begin a fresh cache on the last window (prefill)
            start = max(0, idx.size(1) - window)
            cache = self.new_cache(idx.size(0))
            return self(idx[:, start:], cache=cache)[0][:, -1, :], cache, start
        logits, _ = self(idx[:, -1:], cache=cache, start_pos=idx.size(1) - 1 - start)
        return logits[:, -1, :], cache, start

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, top_p=None, generator=None,
                 use_cache=True):
        """Append max_new_tokens sampled tokens to idx (B, T) and return it."""
        cache, start = None, 0  # the cache holds the keys and values of idx[:, start:]
        for _ in range(max_new_tokens):
            logits, cache, start = self._next_logits(idx, cache, start, use_cache)
            logits = logits / temperature  # (B, vocab_size)
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits = logits.masked_fill(logits < v[:, [-1]], float("-inf"))
            if top_p is not None:
                sorted_probs, order = torch.sort(F.softmax(logits, dim=-1), dim=-1, descending=True)
                # nucleus: keep the most likely tokens until their mass reaches top_p (the token that
                # crosses top_p is kept); a token goes when the tokens ranked above it hold top_p already
                drop_sorted = sorted_probs.cumsum(dim=-1) - sorted_probs >= top_p
                drop = drop_sorted.scatter(-1, order, drop_sorted)
                logits = logits.masked_fill(drop, float("-inf"))
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx
