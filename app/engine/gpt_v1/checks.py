"""The gpt-v1 hidden test suite, trusted half: measurements + reference measurements -> verdicts."""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.gpt_v1 import checks_gpt as own
from app.engine.gpt_v1 import checks_interface as itf
from app.engine.measurements import Measurements
from app.engine.shared import checks_generation as gen
from app.engine.shared import checks_model as mod
from app.engine.shared import checks_structure as st
from app.engine.shared import checks_training as trn
from app.engine.shared import judging
from app.engine.shared.judging import Check
from app.engine.shared.verdicts import TestSpec, Verdict

# Needs (checks_interface): "model", "forward" (all positions' logits without targets), "forward_targets",
# "generate", "get_batch", "train_step", "evaluate", and the runs "training_run" and "leak_probe".
M, F, FT, G = ("model",), ("forward",), ("forward_targets",), ("generate",)
TRAINING = ("training_run",)

SUITE: list[tuple[TestSpec, Check]] = [
    (TestSpec("general.interface", "general", True, "the code follows the gpt-v1 interface"), itf.interface_met),
    (TestSpec("data.get-batch-shapes", "general", False, "get_batch shapes and seeding"), mod.get_batch_shapes),
    (TestSpec("data.targets-next-token", "loss", False, "targets are the next tokens", needs=("get_batch",)),
     mod.targets_next_token),
    (TestSpec("data.windows-cover-data", "general", False, "every window can be drawn", needs=("get_batch",)),
     mod.windows_cover_data),
    (TestSpec("general.forward-shapes", "general", True, "logits shape for several (B, T)", needs=M),
     mod.forward_shapes),
    (TestSpec("general.finite-outputs", "general", True, "finite logits and loss", needs=M), mod.finite_outputs),
    (TestSpec("general.eval-deterministic", "general", False, "eval mode is deterministic", needs=M),
     mod.eval_deterministic),
    (TestSpec("loss.matches-cross-entropy", "loss", False, "loss is the cross-entropy of the logits", needs=FT),
     mod.loss_matches_cross_entropy),
    (TestSpec("loss.ignores-minus-one", "loss", False, "targets of -1 are ignored", needs=FT),
     mod.loss_ignores_minus_one),
    (TestSpec("loss.rewards-own-target", "loss", False, "each position's loss rewards its own target", needs=FT),
     st.loss_own_target),
    (TestSpec("loss.mean-over-positions", "loss", False, "the loss does not grow with B or T", needs=FT),
     st.loss_size_invariant),
    (TestSpec("loss.padding-matches-shorter", "loss", False, "padding with -1 does not change the loss", needs=FT),
     st.loss_padding),
    (TestSpec("loss.init-near-ln-v", "loss", True, "initial loss near ln V", needs=FT), mod.init_loss),
    (TestSpec("positional.receives-gradient", "positional", False, "positional parameters train", needs=FT),
     own.positional_gradient),
    (TestSpec("positional.depends-on-position", "positional", False, "output depends on the order of tokens",
              needs=F), mod.depends_on_position),
    (TestSpec("attention.causal-perturb", "attention", False, "later tokens do not change earlier outputs",
              needs=F), mod.causal_perturb),
    (TestSpec("attention.causal-extreme-scores", "attention", False, "causal even with huge scores", needs=F),
     mod.causal_extreme),
    (TestSpec("attention.causal-gradient", "attention", False, "no gradient from later positions", needs=F),
     mod.causal_gradient),
    (TestSpec("attention.rows-sum-to-one", "attention", False, "attention rows are distributions", needs=M),
     st.attention_rows_sum),
    (TestSpec("attention.rows-zero-on-future", "attention", False, "softmax gives the future zero weight",
              needs=M), st.attention_rows_causal),
    (TestSpec("attention.score-scale", "attention", False, "scores are scaled by 1/sqrt(head size)", needs=M),
     own.attention_scale),
    (TestSpec("general.block-residual-identity", "general", False, "a block with silent sublayers is the identity",
              needs=M), st.block_identity),
    (TestSpec("general.mlp-nonlinear", "general", False, "the MLP is nonlinear", needs=M), st.mlp_nonlinear),
    (TestSpec("general.final-norm", "general", False, "the output layer sees normalised features", needs=M),
     st.final_norm),
    (TestSpec("attention.no-batch-mixing", "attention", False, "sequences do not mix", needs=F),
     mod.batch_independence),
    (TestSpec("attention.random-token-leak", "attention", False, "random tokens stay unpredictable",
              needs=("leak_probe",)), trn.random_token_leak),
    (TestSpec("training.overfit-one-batch", "training", False, "memorises one batch", needs=FT),
     mod.overfit_one_batch),
    (TestSpec("training.runs", "training", True, "the training runs complete",
              needs=("forward_targets", "get_batch", "train_step")), itf.training_completes),
    (TestSpec("training.finite", "training", True, "training stays finite", needs=TRAINING), trn.training_finite),
    (TestSpec("training.learns", "training", True, "validation loss reaches the baseline", needs=TRAINING),
     trn.training_learns),
    (TestSpec("training.not-too-good", "training", True, "no suspiciously low loss", needs=TRAINING),
     trn.training_not_too_good),
    (TestSpec("training.step-gradients", "training", False, "train_step uses this batch's gradients",
              needs_train=True, needs=("forward_targets", "train_step")), trn.step_gradients),
    (TestSpec("training.gradients-reset", "training", False, "gradients do not accumulate across steps",
              needs_train=True, needs=("forward_targets", "train_step")), trn.gradients_reset),
    (TestSpec("training.clip-before-step", "training", False, "clipping happens before the step",
              needs_train=True, needs=("forward_targets", "train_step")), trn.clip_before_step),
    (TestSpec("training.evaluate-eval-mode", "training", False, "evaluate uses and restores modes",
              needs_train=True, needs=("forward_targets", "evaluate")), trn.eval_mode),
    (TestSpec("training.evaluate-mean", "training", False, "evaluate returns the mean loss",
              needs_train=True, needs=("forward_targets", "evaluate")), trn.evaluate_mean),
    (TestSpec("generation.crops-context", "generation", False, "generation past block_size", needs=G),
     own.crops_context),
    (TestSpec("generation.samples-last-position", "generation", False, "samples from the last position",
              needs=G), gen.samples_last_position),
    (TestSpec("generation.temperature", "generation", False, "temperature scales the logits", needs=G),
     gen.temperature),
    (TestSpec("generation.top-k", "generation", False, "top-k keeps k tokens", needs=G), gen.top_k),
    (TestSpec("generation.greedy", "generation", False, "top_k=1 is greedy", needs=G), gen.greedy),
    (TestSpec("generation.seeded-reproducible", "generation", False, "seeded generation reproduces", needs=G),
     gen.seeded_reproducible),
    (TestSpec("equivalence.logits", "general", False, "logits under fixed weights", tier="equivalence", needs=F),
     mod.equivalence_logits),
    (TestSpec("equivalence.last-position", "general", False, "last-position logits under fixed weights",
              tier="equivalence", needs=M), mod.equivalence_last),
]

SPECS: dict[str, TestSpec] = {spec.id: spec for spec, _ in SUITE}


def suite_for(files: Sequence[str]) -> list[TestSpec]:
    """The tests that apply to a scenario with these candidate files."""
    return judging.suite_for(SUITE, files)


def run_checks(candidate: Measurements, reference: Measurements, *, files: Sequence[str]) -> list[Verdict]:
    """Judge every applicable test, the interface check first (judging.judge: not_run rules, crashes)."""
    return judging.judge(SUITE, itf.NEEDS, candidate, reference, files=files)
