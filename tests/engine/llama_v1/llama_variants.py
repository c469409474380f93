"""llama-v1 submissions for tests: the template, and other shapes of model.py or train.py
(fixtures/llama_shapes/), rewritten by exact-text edits, with the tests that must catch each edit."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.engine.llama_v1.bundle import TEMPLATE_DIR

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "llama_shapes"
FILES = ("model.py", "data.py", "train.py")


def template_files() -> dict[str, str]:
    return {name: (TEMPLATE_DIR / name).read_text() for name in FILES}


def shape_files(shape: str = "", train_shape: str = "") -> dict[str, str]:
    """The template's files, with fixtures/llama_shapes/<shape>.py as model.py and
    fixtures/llama_shapes/<train_shape>.py as train.py where given."""
    out = template_files()
    if shape:
        out["model.py"] = (SHAPES / f"{shape}.py").read_text()
    if train_shape:
        out["train.py"] = (SHAPES / f"{train_shape}.py").read_text()
    return out


@dataclass(frozen=True)
class Variant:
    name: str
    edits: list[tuple[str, str, str]]  # (file, old, new)
    detected_by: list[str] = field(default_factory=list)
    shape: str = ""  # a file of fixtures/llama_shapes instead of the template's model.py
    train_shape: str = ""  # a file of fixtures/llama_shapes instead of the template's train.py

    def files(self) -> dict[str, str]:
        out = shape_files(self.shape, self.train_shape)
        for file, old, new in self.edits:
            assert out[file].count(old) == 1, f"{self.name}: edit does not apply to {file}: {old!r}"
            out[file] = out[file].replace(old, new)
        return out


def m(old: str, new: str) -> tuple[str, str, str]:
    return ("model.py", old, new)


def t(old: str, new: str) -> tuple[str, str, str]:
    return ("train.py", old, new)


# test id prefix -> the probes its check reads
PROBES_FOR = {
    "general.interface": ["interface"],
    "data.": ["get_batch_targets", "get_batch_coverage"],
    "general.forward-shapes": ["forward_shapes"], "general.finite-outputs": ["forward_shapes"],
    "general.eval-deterministic": ["eval_determinism"],
    "loss.matches-cross-entropy": ["loss_consistency"], "loss.ignores-minus-one": ["loss_consistency"],
    "loss.rewards-own-target": ["loss_invariances"], "loss.mean-over-positions": ["loss_invariances"],
    "loss.padding-matches-shorter": ["loss_invariances"], "loss.init-near-ln-v": ["init_loss"],
    "positional.depends-on-position": ["order_dependence"],
    "positional.shift-invariant": ["shift_invariance"],
    "positional.rotation-keeps-norm": ["rotary"], "positional.rotary-frequencies": ["rotary"],
    "positional.rotary-frequency-set": ["rotary"], "positional.values-carry-no-position": ["rotary"],
    "positional.rotary-in-decode": ["decode_attention"],
    "generation.decode-": ["decode_attention"], "generation.chunk-mask": ["decode_attention"],
    "attention.causal-perturb": ["causality_perturb"], "attention.causal-extreme-scores": ["causality_extreme"],
    "attention.causal-gradient": ["causality_gradient"], "attention.rows-": ["attention_rows"],
    "attention.score-scale": ["attention_scale"],
    "attention.no-batch-mixing": ["batch_independence", "causality_gradient"],
    "general.block-residual-identity": ["block_identity"], "general.mlp-nonlinear": ["mlp_nonlinearity"],
    "general.swiglu-gate": ["gate"], "general.final-norm": ["final_norm"], "general.rmsnorm": ["norms"],
    "general.parameters-receive-gradient": ["parameter_gradients"],
    "generation.cache-matches-full-forward": ["cache_agreement"],
    "generation.cache-chunk-after-prefix": ["cache_agreement"], "generation.cache-kv-heads": ["cache_heads"],
    "generation.top-p": ["top_p"], "generation.seeded-reproducible": ["seeded_generation"],
    "generation.crops-context": ["generation"], "generation.samples-last-position": ["generation"],
    "generation.temperature": ["generation"], "generation.top-k": ["generation"], "generation.greedy": ["generation"],
    "training.overfit-one-batch": ["overfit_one_batch"],
    "training.step-gradients": ["train_step_gradients"], "training.gradients-reset": ["train_step_gradients"],
    "training.clip-before-step": ["train_step_clipping"], "training.evaluate-": ["evaluate_mode"],
    "training.accumulation-token-mean": ["accumulation"], "training.lr-schedule": ["lr_schedule"],
    "equivalence.": ["equivalence"],
}


def probes_for(test_ids: list[str]) -> list[str]:
    out = ["interface"]
    for test_id in test_ids:
        for prefix, names in PROBES_FOR.items():
            if test_id.startswith(prefix):
                out += [n for n in names if n not in out]
    return out
