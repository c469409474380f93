"""The grader's own model for the probes, and the reference arithmetic the judge computes with it.

ProbeLM follows the call contract 1c gives the candidate's pieces (`logits, _ = model(input_ids)`); its
parameters all sit in nn.Embedding, nn.Linear and nn.LayerNorm, untied, so decay groups have one right
answer (matrices decay, vectors do not). Each position's logits depend on its own token and the one
before it, so a label off by one position changes the loss. Both processes import this file: the agent
builds the model the candidate's code trains, the judge a twin with the same weights to compute every
reference (gradients, losses) in float64 itself.

Standalone: stdlib + torch.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, DIM = 32, 16
IGNORE = -100


class ProbeLM(nn.Module):
    """A tiny LM: embed, mix each position with the previous one, norm, dropout, project to the vocab.
    With `record`, each forward call appends (training flag, grad enabled, attention_mask passed, CPU
    autocast on) to `calls`: what evaluate and train_step ran the model in."""

    def __init__(self, vocab=VOCAB, dim=DIM, dropout=0.0, record=False):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(2 * dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(dim, vocab)
        self.record = record
        self.calls = []

    def forward(self, input_ids, targets=None, **kwargs):
        if self.record:
            self.calls.append([bool(self.training), bool(torch.is_grad_enabled()),
                               kwargs.get("attention_mask") is not None, bool(torch.is_autocast_enabled("cpu"))])
        x = self.embed(input_ids)
        prev = torch.cat((torch.zeros_like(x[:, :1]), x[:, :-1]), dim=1)
        h = self.drop(self.norm(F.gelu(self.mix(torch.cat((x, prev), dim=-1)))))
        return self.head(h), None


def build(seed=0, dtype=torch.float64, dropout=0.0, record=False):
    """ProbeLM with parameters from `seed` (the same in both processes), cast to dtype."""
    g = torch.Generator().manual_seed(int(seed))
    model = ProbeLM(dropout=dropout, record=record)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.5)
    return model.to(dtype)


def collate(examples, pad_id):
    """The contract's collate (1c), the grader's own: right padding, attention_mask 1 on real tokens,
    labels[b, t] = input_ids[b, t + 1] when position t + 1 is real, else -100."""
    T = max(len(e) for e in examples)
    input_ids = torch.full((len(examples), T), int(pad_id), dtype=torch.long)
    mask = torch.zeros((len(examples), T), dtype=torch.long)
    labels = torch.full((len(examples), T), IGNORE, dtype=torch.long)
    for b, e in enumerate(examples):
        n = len(e)
        input_ids[b, :n] = torch.tensor(e, dtype=torch.long)
        mask[b, :n] = 1
        if n > 1:
            labels[b, :n - 1] = input_ids[b, 1:n]
    return {"input_ids": input_ids, "attention_mask": mask, "labels": labels}


def token_loss_sum(model, batch):
    """(sum of cross-entropy over the batch's target tokens, their number)."""
    logits, _ = model(batch["input_ids"])
    labels = batch["labels"]
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)).double(), labels.reshape(-1),
                           ignore_index=IGNORE, reduction="sum")
    return loss, int((labels != IGNORE).sum())


def token_mean_loss(model, batches):
    """The mean cross-entropy over every target token of all batches together."""
    total, count = 0.0, 0
    for batch in batches:
        loss, n = token_loss_sum(model, batch)
        total, count = total + loss, count + n
    return total / count


def reference_grads(model, micro_batches, grad_clip):
    """name -> the gradient of the token mean over every micro-batch together, its total norm clipped
    to grad_clip (what one optimizer step of train_step must be handed); and the norm before clipping."""
    model.zero_grad(set_to_none=True)
    token_mean_loss(model, micro_batches).backward()
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
    norm = float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads.values())))
    coef = grad_clip / (norm + 1e-6)  # as torch.nn.utils.clip_grad_norm_ scales
    if coef < 1.0:
        grads = {n: g * coef for n, g in grads.items()}
    model.zero_grad(set_to_none=True)
    return grads, norm
