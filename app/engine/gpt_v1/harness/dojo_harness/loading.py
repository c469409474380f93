"""Import the candidate's modules from DOJO_CANDIDATE_DIR and build probe models."""

import importlib
import sys

import torch

from .errors import describe


class CandidateImportError(Exception):
    """The candidate's code could not be imported; `kind` is 'syntax', 'memory' or 'import'."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


def import_candidate(candidate_dir, names):
    """Import each named module (e.g. 'model', 'data') fresh from the candidate directory."""
    if candidate_dir not in sys.path:
        sys.path.insert(0, candidate_dir)
    modules = {}
    for name in names:
        sys.modules.pop(name, None)
        try:
            modules[name] = importlib.import_module(name)
        except SyntaxError as exc:
            raise CandidateImportError("syntax", describe(exc, candidate_dir)) from None
        except MemoryError as exc:  # the sandbox's memory limit stopped an allocation at import time
            raise CandidateImportError("memory", describe(exc, candidate_dir)) from None
        except BaseException as exc:  # SystemExit and friends at import time are import errors too
            raise CandidateImportError("import", describe(exc, candidate_dir)) from None
    return modules


def build_model(model_mod, *, vocab_size=37, block_size=12, n_layer=2, n_head=4, n_embd=48,
                dropout=0.0, seed=0, dtype=torch.float64, train=False):
    """Construct GPT(GPTConfig(...)) exactly as the contract says, seeded, in eval mode unless train."""
    config = model_mod.GPTConfig(vocab_size=vocab_size, block_size=block_size, n_layer=n_layer,
                                 n_head=n_head, n_embd=n_embd, dropout=dropout)
    torch.manual_seed(seed)
    model = model_mod.GPT(config)
    model.to(dtype)
    model.train(train)
    return model


def forward(model, idx, targets=None):
    """Call the model and check it returned (logits, loss)."""
    out = model(idx, targets) if targets is not None else model(idx)
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError("forward must return a (logits, loss) tuple")
    return out


def tokens(shape, *, high=37, seed=1):
    """Fixed random token ids."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, high, shape, generator=g)
