"""The llama-v1 hidden test suite, trusted half: measurements + reference measurements -> verdicts.

The shared checks (app/engine/shared/) judge the probes the two interfaces share (their readings are
the same); the llama-v1 checks judge the cache, rotary positions, RMSNorm, the gate, top-p, the
schedule and gradient accumulation. Test ids of the shared checks, statuses and the not-run rules are
gpt-v1's too (app/engine/shared/judging.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.llama_v1 import checks_cache as cache
from app.engine.llama_v1 import checks_generation as gen
from app.engine.llama_v1 import checks_interface as itf
from app.engine.llama_v1 import checks_layers as lay
from app.engine.llama_v1 import checks_training as ltrn
from app.engine.measurements import Measurements
from app.engine.shared import checks_generation as shared_gen
from app.engine.shared import checks_model as mod
from app.engine.shared import checks_structure as st
from app.engine.shared import checks_training as trn
from app.engine.shared import judging
from app.engine.shared.judging import Check
from app.engine.shared.verdicts import TestSpec, Verdict

# Needs (checks_interface): "model", "forward", "forward_targets", "cache", "generate", "get_batch",
# "train_step", "evaluate", "get_lr", and the runs "training_run" and "leak_probe".
M, F, FT, CA, G = ("model",), ("forward",), ("forward_targets",), ("cache",), ("generate",)
TRAINING = ("training_run",)
STEP = ("forward_targets", "train_step")


def _t(test_id: str, component: str, public: bool, title: str, needs: tuple[str, ...] = (), *,
       needs_train: bool = False, tier: str = "behaviour") -> TestSpec:
    return TestSpec(test_id, component, public, title, tier=tier, needs_train=needs_train, needs=needs)


SUITE: list[tuple[TestSpec, Check]] = [
    (_t("general.interface", "general", True, "the code follows the llama-v1 interface"), itf.interface_met),
    (_t("data.get-batch-shapes", "general", False, "get_batch shapes and seeding"), mod.get_batch_shapes),
    (_t("data.targets-next-token", "loss", False, "targets are the next tokens", ("get_batch",)),
     mod.targets_next_token),
    (_t("data.windows-cover-data", "general", False, "every window can be drawn", ("get_batch",)),
     mod.windows_cover_data),
    (_t("general.forward-shapes", "general", True, "logits shape for several (B, T)", M), mod.forward_shapes),
    (_t("general.finite-outputs", "general", True, "finite logits and loss", M), mod.finite_outputs),
    (_t("general.eval-deterministic", "general", False, "eval mode is deterministic", M), mod.eval_deterministic),
    (_t("loss.matches-cross-entropy", "loss", False, "loss is the cross-entropy of the logits", FT),
     mod.loss_matches_cross_entropy),
    (_t("loss.ignores-minus-one", "loss", False, "targets of -1 are ignored", FT), mod.loss_ignores_minus_one),
    (_t("loss.rewards-own-target", "loss", False, "each position's loss rewards its own target", FT),
     st.loss_own_target),
    (_t("loss.mean-over-positions", "loss", False, "the loss does not grow with B or T", FT), st.loss_size_invariant),
    (_t("loss.padding-matches-shorter", "loss", False, "padding with -1 does not change the loss", FT),
     st.loss_padding),
    (_t("loss.init-near-ln-v", "loss", True, "initial loss near ln V", FT), mod.init_loss),
    (_t("positional.depends-on-position", "positional", False, "output depends on the order of tokens", F),
     mod.depends_on_position),
    (_t("positional.shift-invariant", "positional", False, "the same tokens at another start position agree", CA),
     cache.shift_invariant),
    (_t("positional.rotation-keeps-norm", "positional", False, "rotary positions keep |q| and |k|", M),
     lay.rotation_keeps_norm),
    (_t("positional.rotary-frequencies", "positional", False, "rotary angles are position times frequency", M),
     lay.rotary_frequencies),
    (_t("positional.rotary-frequency-set", "positional", False, "each channel turns at a rotary frequency", M),
     lay.rotary_frequency_set),
    (_t("positional.values-carry-no-position", "positional", False, "a repeated token reads the same everywhere", M),
     lay.values_carry_no_position),
    (_t("positional.rotary-in-decode", "positional", False, "a decoded token is rotated by its position", CA),
     cache.rotary_in_decode),
    (_t("attention.causal-perturb", "attention", False, "later tokens do not change earlier outputs", F),
     mod.causal_perturb),
    (_t("attention.causal-extreme-scores", "attention", False, "causal even with huge scores", F),
     mod.causal_extreme),
    (_t("attention.causal-gradient", "attention", False, "no gradient from later positions", F), mod.causal_gradient),
    (_t("attention.rows-sum-to-one", "attention", False, "attention rows are distributions", M),
     st.attention_rows_sum),
    (_t("attention.rows-zero-on-future", "attention", False, "softmax gives the future zero weight", M),
     st.attention_rows_causal),
    (_t("attention.score-scale", "attention", False, "scores are scaled by 1/sqrt(head_dim)", M), lay.attention_scale),
    (_t("attention.no-batch-mixing", "attention", False, "sequences do not mix", F), mod.batch_independence),
    (_t("attention.random-token-leak", "attention", False, "random tokens stay unpredictable", ("leak_probe",)),
     trn.random_token_leak),
    (_t("general.block-residual-identity", "general", False, "a block with silent sublayers is the identity", M),
     st.block_identity),
    (_t("general.mlp-nonlinear", "general", False, "the MLP is nonlinear", M), st.mlp_nonlinear),
    (_t("general.swiglu-gate", "general", False, "the MLP is a SiLU-gated product", M), lay.swiglu_gate),
    (_t("general.final-norm", "general", False, "the output layer sees normalised features", M), st.final_norm),
    (_t("general.rmsnorm", "general", False, "normalisation divides by the root-mean-square", M), lay.rmsnorm),
    (_t("general.rmsnorm-eps", "general", False, "small and zero features stay finite", M), lay.rmsnorm_eps),
    (_t("general.parameters-receive-gradient", "general", False, "every trainable parameter gets a gradient", FT),
     lay.parameters_receive_gradient),
    (_t("generation.cache-matches-full-forward", "generation", False, "decoding through the cache", CA),
     cache.cache_matches_full),
    (_t("generation.cache-chunk-after-prefix", "generation", False, "a chunk through the cache", CA),
     cache.cache_chunk),
    (_t("generation.cache-kv-heads", "generation", False, "the cache holds n_kv_heads", CA), cache.cache_kv_heads),
    (_t("generation.decode-own-key", "generation", False, "a decoded token sees its own key", CA),
     cache.decode_own_key),
    (_t("generation.decode-weighs-every-key", "generation", False, "a decoded token weighs every cached key", CA),
     cache.decode_weighs_every_key),
    (_t("generation.chunk-mask", "generation", False, "a chunk after cached tokens is masked causally", CA),
     cache.chunk_mask),
    (_t("training.overfit-one-batch", "training", False, "memorises one batch", FT), mod.overfit_one_batch),
    (_t("training.runs", "training", True, "the training runs complete", ("forward_targets", "get_batch",
                                                                           "train_step")), itf.training_completes),
    (_t("training.finite", "training", True, "training stays finite", TRAINING), trn.training_finite),
    (_t("training.learns", "training", True, "validation loss reaches the baseline", TRAINING), trn.training_learns),
    (_t("training.not-too-good", "training", True, "no suspiciously low loss", TRAINING), trn.training_not_too_good),
    (_t("training.step-gradients", "training", False, "train_step uses this batch's gradients", STEP,
        needs_train=True), trn.step_gradients),
    (_t("training.gradients-reset", "training", False, "gradients do not accumulate across steps", STEP,
        needs_train=True), trn.gradients_reset),
    (_t("training.clip-before-step", "training", False, "clipping happens before the step", STEP, needs_train=True),
     trn.clip_before_step),
    (_t("training.accumulation-token-mean", "training", False, "micro-batches add up to one batch", STEP,
        needs_train=True), ltrn.accumulation),
    (_t("training.lr-schedule", "training", False, "the learning-rate schedule", ("get_lr",), needs_train=True),
     ltrn.lr_schedule),
    (_t("training.evaluate-eval-mode", "training", False, "evaluate uses and restores modes",
        ("forward_targets", "evaluate"), needs_train=True), trn.eval_mode),
    (_t("training.evaluate-mean", "training", False, "evaluate returns the mean loss", ("forward_targets", "evaluate"),
        needs_train=True), trn.evaluate_mean),
    (_t("generation.crops-context", "generation", False, "generation past max_seq_len", G), gen.crops_context),
    (_t("generation.samples-last-position", "generation", False, "samples from the last position", G),
     shared_gen.samples_last_position),
    (_t("generation.temperature", "generation", False, "temperature scales the logits", G), shared_gen.temperature),
    (_t("generation.top-k", "generation", False, "top-k keeps k tokens", G), shared_gen.top_k),
    (_t("generation.top-p", "generation", False, "top-p keeps the nucleus", G), gen.top_p_nucleus),
    (_t("generation.top-p-one", "generation", False, "top_p=1.0 changes nothing", G), gen.top_p_one),
    (_t("generation.greedy", "generation", False, "top_k=1 is greedy", G), shared_gen.greedy),
    (_t("generation.seeded-reproducible", "generation", False, "seeded generation reproduces", G),
     shared_gen.seeded_reproducible),
    (_t("equivalence.logits", "general", False, "logits under fixed weights", F, tier="equivalence"),
     mod.equivalence_logits),
    (_t("equivalence.last-position", "general", False, "last-position logits under fixed weights", M,
        tier="equivalence"), mod.equivalence_last),
]

SPECS: dict[str, TestSpec] = {spec.id: spec for spec, _ in SUITE}


def suite_for(files: Sequence[str]) -> list[TestSpec]:
    """The tests that apply to a scenario with these candidate files."""
    return judging.suite_for(SUITE, files)


def run_checks(candidate: Measurements, reference: Measurements, *, files: Sequence[str]) -> list[Verdict]:
    """Judge every applicable test, the interface check first (judging.judge: not_run rules, crashes)."""
    return judging.judge(SUITE, itf.NEEDS, candidate, reference, files=files)
