"""The judge's run over gpt-v1: every probe in order, then the tiny training run and the leak probe.

measure(session, job) composes all requests to the agent through `session` and returns the result
dict that result.json holds (the format app/engine/README.md describes)."""

import os
import time

from dojo_kit import progress
from dojo_kit.judge import guarded, run_probes
from lm_probes import (
    data_probes,
    generation_probes,
    loss_probes,
    model_probes,
    structure_probes,
    tiny_run,
    train_probes,
)
from lm_probes.attention_probes import attention_rows
from lm_probes.tiny_run import DEFAULT_TRAINING

from . import RESULT_SCHEMA, interface, positional_probes, scale_probes

HARNESS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBES = [  # (name, needs train.py, function); the interface first, as the checks judge it first
    ("interface", False, interface.interface),
    ("get_batch_targets", False, data_probes.get_batch_targets),
    ("get_batch_coverage", False, data_probes.get_batch_coverage),
    ("forward_shapes", False, model_probes.forward_shapes),
    ("loss_consistency", False, model_probes.loss_consistency),
    ("init_loss", False, model_probes.init_loss),
    ("positional_gradient", False, positional_probes.positional_gradient),
    ("order_dependence", False, model_probes.order_dependence),
    ("causality_perturb", False, model_probes.causality_perturb),
    ("causality_extreme", False, model_probes.causality_extreme),
    ("causality_gradient", False, model_probes.causality_gradient),
    ("batch_independence", False, model_probes.batch_independence),
    ("eval_determinism", False, model_probes.eval_determinism),
    ("loss_invariances", False, loss_probes.loss_invariances),
    ("attention_rows", False, attention_rows),
    ("attention_scale", False, scale_probes.attention_scale),
    ("block_identity", False, structure_probes.block_identity),
    ("mlp_nonlinearity", False, structure_probes.mlp_nonlinearity),
    ("final_norm", False, structure_probes.final_norm),
    ("equivalence", False, model_probes.equivalence),
    ("overfit_one_batch", False, model_probes.overfit_one_batch),
    ("generation", False, generation_probes.generation),
    ("seeded_generation", False, generation_probes.seeded_reproducible),
    ("train_step_gradients", True, train_probes.train_step_gradients),
    ("train_step_clipping", True, train_probes.train_step_clipping),
    ("evaluate_mode", True, train_probes.evaluate_mode),
]


def selected_probes(probes, session, wanted):
    """(name, function) of the probes to run: those whose files exist, those asked for (None: all)."""
    return [(name, func) for name, needs_train, func in probes
            if not (needs_train and "train" not in session) and (wanted is None or name in wanted)]


def training_measurements(session, cfg, wanted):
    """The tiny training run (with the influence map of its trained model) and the leak probe."""
    probes, seconds = {}, {}
    if wanted is not None and "training_run" not in wanted and "leak_probe" not in wanted:
        return probes, seconds
    corpus = tiny_run.load_corpus(tiny_run.corpus_path(HARNESS_DIR))
    t0 = time.perf_counter()
    run = guarded(tiny_run.training_run, session, corpus, cfg)
    model = run.pop("model", None)
    probes["training_run"] = run
    if model is not None:
        window = corpus["val"][:min(16, cfg["block_size"])]
        probes["influence"] = guarded(model_probes.influence_matrix, model, window, corpus["chars"])
    seconds["training_run"] = round(time.perf_counter() - t0, 3)
    if wanted is not None and "leak_probe" not in wanted:
        return probes, seconds
    t0 = time.perf_counter()
    progress.report("leak-probe")
    probes["leak_probe"] = guarded(tiny_run.leak_probe, session, len(corpus["chars"]), cfg)
    seconds["leak_probe"] = round(time.perf_counter() - t0, 3)
    return probes, seconds


def measure(session, job):
    """Every probe's measurements for one job (the judge writes them as result.json)."""
    wanted = job.get("probes")  # None: all; tests select a few to stay fast
    probes, seconds = run_probes(session, selected_probes(PROBES, session, wanted))
    cfg = dict(DEFAULT_TRAINING, **job.get("training", {}))
    more, more_seconds = training_measurements(session, cfg, wanted)
    probes.update(more)
    seconds.update(more_seconds)
    return {"schema": RESULT_SCHEMA, "error": None, "probes": probes, "seconds": seconds,
            "has_train": "train" in session}
