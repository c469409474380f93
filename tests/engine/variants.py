"""Model and data files for tests: the leaky-mask solution rewritten by exact-text replacements.

CORRECT_VARIANTS are correct fixes written differently from the solution; they must pass every
test. BUG_FIXTURES plant one catalog bug each and name the tests expected to catch it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

SOLUTION = Path(__file__).resolve().parents[2] / "app" / "scenarios_builtin" / "leaky-mask" / "solution"
TRAIN_PY = Path(__file__).resolve().parent / "fixtures" / "train_solution.py"
# Submissions written independently of the starter (see shapes.py): model files plus one data.py.
SHAPES = Path(__file__).resolve().parent / "fixtures" / "shapes"

ATTN_CORE = """        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, nh, T, T)
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v  # (B, nh, T, hs)
"""
MASK_LINE = '        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))\n'
POS_LINES = """        tok_emb = self.transformer.wte(idx)  # (B, T, C)
        pos_emb = self.transformer.wpe(pos)  # (T, C)
        x = self.transformer.drop(tok_emb + pos_emb)
"""


def solution_files(with_train: bool = False) -> dict[str, str]:
    files = {name: (SOLUTION / name).read_text() for name in ("model.py", "data.py")}
    if with_train:
        files["train.py"] = TRAIN_PY.read_text()
    return files


def shape_files(shape: str, with_train: bool = False) -> dict[str, str]:
    """The files of a submission in another shape: fixtures/shapes/<shape>.py as model.py."""
    files = {"model.py": (SHAPES / f"{shape}.py").read_text(), "data.py": (SHAPES / "data.py").read_text()}
    if with_train:
        files["train.py"] = TRAIN_PY.read_text()
    return files


@dataclass(frozen=True)
class Variant:
    name: str
    edits: list[tuple[str, str, str]]  # (file, old, new)
    detected_by: list[str] = field(default_factory=list)
    with_train: bool = False
    probes: list[str] = field(default_factory=list)
    shape: str = ""  # a file of fixtures/shapes to edit instead of the leaky-mask solution

    def files(self) -> dict[str, str]:
        out = shape_files(self.shape, self.with_train) if self.shape else solution_files(self.with_train)
        for file, old, new in self.edits:
            assert out[file].count(old) == 1, f"{self.name}: edit does not apply to {file}: {old!r}"
            out[file] = out[file].replace(old, new)
        return out


def m(old: str, new: str) -> tuple[str, str, str]:
    return ("model.py", old, new)


CORRECT_VARIANTS = [
    Variant("sdpa", [m(ATTN_CORE, "        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n")]),
    Variant("additive-mask", [
        m('        self.register_buffer("bias", mask.view(1, 1, config.block_size, config.block_size))\n',
          '        future = torch.triu(torch.full((config.block_size, config.block_size), float("-inf")), 1)\n'
          '        self.register_buffer("future", future)\n'),
        m(MASK_LINE, "        att = att + self.future[:T, :T]\n"),
    ]),
    Variant("sinusoidal-scaled", [
        m("            wpe=nn.Embedding(config.block_size, config.n_embd),\n", ""),
        m("        self.apply(self._init_weights)\n",
          "        self.apply(self._init_weights)\n"
          "        position = torch.arange(config.block_size).unsqueeze(1)\n"
          "        freq = torch.exp(torch.arange(0, config.n_embd, 2) * (-math.log(10000.0) / config.n_embd))\n"
          "        table = torch.zeros(config.block_size, config.n_embd)\n"
          "        table[:, 0::2] = torch.sin(position * freq)\n"
          "        table[:, 1::2] = torch.cos(position * freq)\n"
          "        self.register_buffer(\"sinusoid\", table)\n"),
        m(POS_LINES, "        tok_emb = self.transformer.wte(idx) * math.sqrt(self.config.n_embd)  # (B, T, C)\n"
                     "        x = self.transformer.drop(tok_emb + self.sinusoid[:T].to(tok_emb.dtype))\n"),
    ]),
    Variant("per-head-loop", [m(ATTN_CORE,
        "        causal = torch.ones(T, T, dtype=torch.bool).tril()\n"
        "        heads = []\n"
        "        for h in range(self.n_head):\n"
        "            scores = q[:, h] @ k[:, h].transpose(-2, -1) / math.sqrt(q.size(-1))  # (B, T, T)\n"
        "            scores = scores.masked_fill(~causal, float(\"-inf\"))\n"
        "            heads.append(self.attn_dropout(F.softmax(scores, dim=-1)) @ v[:, h])  # (B, T, hs)\n"
        "        y = torch.stack(heads, dim=1)  # (B, nh, T, hs)\n")]),
    Variant("learnable-zero-positions", [m("        self.apply(self._init_weights)\n",
        "        self.apply(self._init_weights)\n        torch.nn.init.zeros_(self.transformer.wpe.weight)\n")]),
]
