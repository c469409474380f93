"""The gpt-v1 hidden test suite, trusted half: measurements + reference measurements -> verdicts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.engine.gpt_v1 import checks_generation as gen
from app.engine.gpt_v1 import checks_model as mod
from app.engine.gpt_v1 import checks_structure as st
from app.engine.gpt_v1 import checks_training as trn
from app.engine.gpt_v1.verdicts import Fail, NotApplicable, TestSpec, Verdict

Check = Callable[[dict[str, Any], dict[str, Any]], str]

SUITE: list[tuple[TestSpec, Check]] = [
    (TestSpec("data.get-batch-shapes", "general", False, "get_batch shapes and seeding"), mod.get_batch_shapes),
    (TestSpec("data.targets-next-token", "loss", False, "targets are the next tokens"), mod.targets_next_token),
    (TestSpec("data.windows-cover-data", "general", False, "every window can be drawn"), mod.windows_cover_data),
    (TestSpec("general.forward-shapes", "general", True, "logits shape for several (B, T)"), mod.forward_shapes),
    (TestSpec("general.finite-outputs", "general", True, "finite logits and loss"), mod.finite_outputs),
    (TestSpec("general.eval-deterministic", "general", False, "eval mode is deterministic"),
     mod.eval_deterministic),
    (TestSpec("loss.matches-cross-entropy", "loss", False, "loss is the cross-entropy of the logits"),
     mod.loss_matches_cross_entropy),
    (TestSpec("loss.ignores-minus-one", "loss", False, "targets of -1 are ignored"), mod.loss_ignores_minus_one),
    (TestSpec("loss.rewards-own-target", "loss", False, "each position's loss rewards its own target"),
     st.loss_own_target),
    (TestSpec("loss.mean-over-positions", "loss", False, "the loss does not grow with B or T"),
     st.loss_size_invariant),
    (TestSpec("loss.padding-matches-shorter", "loss", False, "padding with -1 does not change the loss"),
     st.loss_padding),
    (TestSpec("loss.init-near-ln-v", "loss", True, "initial loss near ln V"), mod.init_loss),
    (TestSpec("positional.receives-gradient", "positional", False, "positional parameters train"),
     mod.positional_gradient),
    (TestSpec("positional.depends-on-position", "positional", False, "output depends on position"),
     mod.depends_on_position),
    (TestSpec("attention.causal-perturb", "attention", False, "later tokens do not change earlier outputs"),
     mod.causal_perturb),
    (TestSpec("attention.causal-extreme-scores", "attention", False, "causal even with huge scores"),
     mod.causal_extreme),
    (TestSpec("attention.causal-gradient", "attention", False, "no gradient from later positions"),
     mod.causal_gradient),
    (TestSpec("attention.rows-sum-to-one", "attention", False, "attention rows are distributions"),
     st.attention_rows_sum),
    (TestSpec("attention.rows-zero-on-future", "attention", False, "softmax gives the future zero weight"),
     st.attention_rows_causal),
    (TestSpec("attention.score-scale", "attention", False, "scores are scaled by 1/sqrt(head size)"),
     st.attention_scale),
    (TestSpec("general.block-residual-identity", "general", False, "a block with silent sublayers is the identity"),
     st.block_identity),
    (TestSpec("general.mlp-nonlinear", "general", False, "the MLP is nonlinear"), st.mlp_nonlinear),
    (TestSpec("attention.no-batch-mixing", "attention", False, "sequences do not mix"), mod.batch_independence),
    (TestSpec("attention.random-token-leak", "attention", False, "random tokens stay unpredictable"),
     trn.random_token_leak),
    (TestSpec("training.overfit-one-batch", "training", False, "memorises one batch"), mod.overfit_one_batch),
    (TestSpec("training.finite", "training", True, "training stays finite"), trn.training_finite),
    (TestSpec("training.learns", "training", True, "validation loss reaches the baseline"), trn.training_learns),
    (TestSpec("training.not-too-good", "training", True, "no suspiciously low loss"), trn.training_not_too_good),
    (TestSpec("training.step-gradients", "training", False, "train_step uses this batch's gradients",
              needs_train=True), trn.step_gradients),
    (TestSpec("training.gradients-reset", "training", False, "gradients do not accumulate across steps",
              needs_train=True), trn.gradients_reset),
    (TestSpec("training.clip-before-step", "training", False, "clipping happens before the step",
              needs_train=True), trn.clip_before_step),
    (TestSpec("training.evaluate-eval-mode", "training", False, "evaluate uses and restores modes",
              needs_train=True), trn.eval_mode),
    (TestSpec("training.evaluate-mean", "training", False, "evaluate returns the mean loss",
              needs_train=True), trn.evaluate_mean),
    (TestSpec("generation.crops-context", "generation", False, "generation past block_size"), gen.crops_context),
    (TestSpec("generation.samples-last-position", "generation", False, "samples from the last position"),
     gen.samples_last_position),
    (TestSpec("generation.temperature", "generation", False, "temperature scales the logits"), gen.temperature),
    (TestSpec("generation.top-k", "generation", False, "top-k keeps k tokens"), gen.top_k),
    (TestSpec("generation.greedy", "generation", False, "top_k=1 is greedy"), gen.greedy),
    (TestSpec("generation.seeded-reproducible", "generation", False, "seeded generation reproduces"),
     gen.seeded_reproducible),
    (TestSpec("equivalence.logits", "general", False, "logits under fixed weights", tier="equivalence"),
     mod.equivalence_logits),
    (TestSpec("equivalence.last-position", "general", False, "last-position logits under fixed weights",
              tier="equivalence"), mod.equivalence_last),
]

SPECS: dict[str, TestSpec] = {spec.id: spec for spec, _ in SUITE}


def suite_for(files: tuple[str, ...] | list[str]) -> list[TestSpec]:
    """The tests that apply to a scenario with these candidate files."""
    has_train = "train.py" in files
    return [spec for spec, _ in SUITE if has_train or not spec.needs_train]


def run_checks(candidate: dict[str, Any], reference: dict[str, Any], *, files: tuple[str, ...] | list[str]
               ) -> list[Verdict]:
    """Judge every applicable test; a check's own crash on malformed measurements is a failure."""
    has_train = "train.py" in files
    verdicts = []
    for spec, check in SUITE:
        if spec.needs_train and not has_train:
            continue
        try:
            message, passed, applicable = check(candidate, reference), True, True
        except Fail as exc:
            message, passed, applicable = str(exc), False, True
        except NotApplicable as exc:
            message, passed, applicable = f"not applicable: {exc}", True, False
        except (KeyError, TypeError, ValueError, IndexError):
            message, passed, applicable = "the measurements for this test were incomplete", False, True
        verdicts.append(Verdict(spec.id, spec.component, passed, message, applicable, spec.public))
    return verdicts
