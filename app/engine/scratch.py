"""The scratch console's sandbox side: its runner script and the corpus, as one read-only directory."""

from __future__ import annotations

import hashlib
from pathlib import Path

from app.core.settings import live_settings
from app.engine.bundle_dir import materialise
from app.engine.interfaces import Interface

SCRATCH_MAIN = Path(__file__).resolve().parent / "scratch_harness" / "main.py"
SCHEMA = "dojo.scratch/1"
FILE_NAME = "scratch.py"
STARTER = '''\
# scratch.py: your experiments, run against your current files with "Run scratch".
# Never graded. model.py and data.py import as usual; the training corpus is corpus.txt in the
# working directory. A few seconds of CPU; print what you want to see.
import torch

from data import get_batch

text = open("corpus.txt", encoding="utf-8").read()
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
data = torch.tensor([stoi[ch] for ch in text], dtype=torch.long)

x, y = get_batch(data, 8, 2, torch.Generator().manual_seed(0))
print("x[0]:", repr("".join(chars[i] for i in x[0].tolist())))
print("y[0]:", repr("".join(chars[i] for i in y[0].tolist())))
'''


def scratch_bundle_dir(interface: Interface) -> Path:
    """main.py and the interface's corpus.txt, built once per version of the two."""
    corpus = interface.corpus_file
    digest = hashlib.sha256(SCRATCH_MAIN.read_bytes() + corpus.read_bytes()).hexdigest()[:16]
    return materialise(live_settings().dojo_data_dir / "cache" / "scratch" / digest,
                       {"main.py": SCRATCH_MAIN, "corpus.txt": corpus})
