"""The pipeline-v1 hidden test suite, trusted half: measurements -> verdicts (CONTRACTS.md section 1c).

Every expectation is the contract's, computed by the judge from its own inputs (the contract's collate,
float64 reference gradients of the token mean, AdamW's rule, the cosine schedule, a run never stopped),
so a check reads the candidate's measurements alone; the reference's (the scenario's solution) pass them.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.measurements import Measurements
from app.engine.pipeline_v1 import checks_data as dat
from app.engine.pipeline_v1 import checks_eval as ev
from app.engine.pipeline_v1 import checks_interface as itf
from app.engine.pipeline_v1 import checks_training as trn
from app.engine.shared import checks_training as runs
from app.engine.shared import judging
from app.engine.shared.judging import Check
from app.engine.shared.verdicts import TestSpec, Verdict

COLLATE, SPLIT, BATCHES = ("collate",), ("split",), ("batches",)
OPT, LR, STEP, EVAL, RESUME = ("build_optimizer",), ("get_lr",), ("train_step",), ("evaluate",), ("resume",)
RUN = ("training_run",)
RUN_PIECES = ("collate", "split", "batches", "build_optimizer", "get_lr", "train_step")


def _t(test_id: str, component: str, public: bool, title: str, needs: tuple[str, ...] = ()) -> TestSpec:
    return TestSpec(test_id, component, public, title, needs=needs)


SUITE: list[tuple[TestSpec, Check]] = [
    (_t("general.interface", "general", True, "the code follows the pipeline-v1 interface"), itf.interface_met),
    (_t("data.collate-shapes", "data", True, "collate right-pads with a mask", COLLATE), dat.collate_shapes),
    (_t("loss.labels-next-token", "loss", False, "labels are the next tokens", COLLATE), dat.labels_next_token),
    (_t("loss.padding-ignored", "loss", False, "padding never enters the loss", COLLATE), dat.padding_ignored),
    (_t("loss.eos-is-a-target", "loss", False, "the final EOS is a target", COLLATE), dat.eos_is_a_target),
    (_t("data.split-disjoint", "data", False, "training and validation share no document", SPLIT),
     dat.split_disjoint),
    (_t("data.split-repeatable", "data", False, "split follows its seed", SPLIT), dat.split_repeatable),
    (_t("data.batches-cover-epoch", "data", False, "an epoch shows every example once", BATCHES),
     dat.batches_cover_epoch),
    (_t("data.batches-reshuffle", "data", False, "each epoch has its own order", BATCHES), dat.batches_reshuffle),
    (_t("optimizer.every-parameter", "optimizer", False, "every parameter is optimized", OPT), trn.every_parameter),
    (_t("optimizer.decay-by-dimension", "optimizer", False, "only matrices and embeddings decay", OPT),
     trn.decay_by_dimension),
    (_t("optimizer.decoupled-decay", "optimizer", False, "weight decay is decoupled (AdamW)", OPT),
     trn.decoupled_decay),
    (_t("training.lr-warmup", "training", False, "the warmup", LR), trn.lr_warmup),
    (_t("training.lr-cosine", "training", False, "the cosine decay", LR), trn.lr_cosine),
    (_t("training.accumulation-token-mean", "training", False, "micro-batches weigh by their tokens", STEP),
     trn.accumulation_token_mean),
    (_t("training.accumulation-equal-split", "training", False, "equal micro-batches add up to one batch", STEP),
     trn.accumulation_equal_split),
    (_t("training.accumulation-every-micro-batch", "training", False, "no micro-batch is lost", STEP),
     trn.accumulation_every_micro_batch),
    (_t("training.clip-total-norm", "training", False, "the total norm is clipped before the step", STEP),
     trn.clip_total_norm),
    (_t("training.scaler-unscaled-step", "training", False, "the scaler steps with true gradients", STEP),
     trn.scaler_unscaled_step),
    (_t("training.scaler-clips-true-gradients", "training", False, "clipping after unscale_", STEP),
     trn.scaler_clips_true_gradients),
    (_t("training.scaler-skips-inf", "training", False, "an infinite step is skipped", STEP), trn.scaler_skips_inf),
    (_t("training.autocast-step", "training", False, "bfloat16 autocast gives the true gradient", STEP),
     trn.autocast_step),
    (_t("evaluation.eval-mode", "evaluation", False, "evaluate runs in eval mode", EVAL), ev.eval_mode),
    (_t("evaluation.restores-train-mode", "evaluation", False, "training mode comes back", EVAL),
     ev.restores_train_mode),
    (_t("evaluation.no-grad", "evaluation", False, "evaluate builds no graph", EVAL), ev.no_grad),
    (_t("evaluation.token-mean", "evaluation", False, "the validation loss is a token mean", EVAL),
     ev.eval_token_mean),
    (_t("checkpoint.resume-step", "checkpoint", False, "load returns the steps done", RESUME), ev.resume_step),
    (_t("checkpoint.optimizer-state", "checkpoint", False, "the optimizer state is restored", RESUME),
     ev.optimizer_state),
    (_t("checkpoint.rng-state", "checkpoint", False, "the RNG state is restored", RESUME), ev.rng_state),
    (_t("checkpoint.matches-uninterrupted", "checkpoint", False, "a resumed run matches one never stopped", RESUME),
     ev.matches_uninterrupted),
    # The grader's loop over the candidate's pieces on the scenario's model (tiny_run.py).
    (_t("training.runs", "training", True, "the training run completes", RUN_PIECES), itf.training_completes),
    (_t("training.learns", "training", True, "validation loss reaches the baseline", RUN), runs.training_learns),
]

SPECS: dict[str, TestSpec] = {spec.id: spec for spec, _ in SUITE}


def suite_for(files: Sequence[str]) -> list[TestSpec]:
    """The tests that apply to a scenario with these candidate files."""
    return judging.suite_for(SUITE, files)


def run_checks(candidate: Measurements, reference: Measurements, *, files: Sequence[str]) -> list[Verdict]:
    """Judge every test, the interface check first (judging.judge: not_run rules, crashes)."""
    return judging.judge(SUITE, itf.NEEDS, candidate, reference, files=files)
