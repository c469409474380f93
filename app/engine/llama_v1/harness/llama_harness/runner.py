"""The judge's run over llama-v1: every probe in order, then the tiny training run and the leak probe.

measure(session, job) composes all requests to the agent through `session` and returns the result
dict that result.json holds. the shared probes (lm_probes) build their models through the session's
view, LlamaView (loading.py); llama-v1's own probes build theirs with ModelArgs' own arguments."""

import os
import time

from dojo_kit import progress
from dojo_kit.judge import guarded, run_probes
from lm_probes import (
    attention_probes,
    data_probes,
    generation_probes,
    loss_probes,
    model_probes,
    structure_probes,
    tiny_run,
)
from lm_probes import train_probes as gpt_train_probes
from lm_probes.tiny_run import DEFAULT_TRAINING

from . import (
    RESULT_SCHEMA,
    cache_probes,
    decode_probes,
    interface,
    layer_probes,
    rotary_probes,
    sampling_probes,
    train_probes,
)

HARNESS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBES = [  # (name, needs train.py, function); the interface first, as the checks judge it first
    ("interface", False, interface.interface),
    ("get_batch_targets", False, data_probes.get_batch_targets),
    ("get_batch_coverage", False, data_probes.get_batch_coverage),
    ("forward_shapes", False, model_probes.forward_shapes),
    ("loss_consistency", False, model_probes.loss_consistency),
    ("init_loss", False, model_probes.init_loss),
    ("order_dependence", False, model_probes.order_dependence),
    ("causality_perturb", False, model_probes.causality_perturb),
    ("causality_extreme", False, model_probes.causality_extreme),
    ("causality_gradient", False, model_probes.causality_gradient),
    ("batch_independence", False, model_probes.batch_independence),
    ("eval_determinism", False, model_probes.eval_determinism),
    ("loss_invariances", False, loss_probes.loss_invariances),
    ("attention_rows", False, attention_probes.attention_rows),
    ("attention_scale", False, rotary_probes.attention_scale),
    ("block_identity", False, structure_probes.block_identity),
    ("mlp_nonlinearity", False, structure_probes.mlp_nonlinearity),
    ("final_norm", False, structure_probes.final_norm),
    ("equivalence", False, model_probes.equivalence),
    ("overfit_one_batch", False, model_probes.overfit_one_batch),
    ("cache_agreement", False, cache_probes.cache_agreement),
    ("shift_invariance", False, cache_probes.shift_invariance),
    ("cache_heads", False, cache_probes.cache_heads),
    ("decode_attention", False, decode_probes.decode_attention),
    ("rotary", False, rotary_probes.rotary),
    ("norms", False, layer_probes.norms),
    ("gate", False, layer_probes.gate),
    ("parameter_gradients", False, layer_probes.parameter_gradients),
    ("generation", False, generation_probes.generation),
    ("seeded_generation", False, generation_probes.seeded_reproducible),
    ("top_p", False, sampling_probes.top_p),
    ("train_step_gradients", True, gpt_train_probes.train_step_gradients),
    ("train_step_clipping", True, gpt_train_probes.train_step_clipping),
    ("evaluate_mode", True, gpt_train_probes.evaluate_mode),
    ("lr_schedule", True, train_probes.lr_schedule),
    ("accumulation", True, train_probes.accumulation),
]
PROBE_NAMES = [name for name, _, _ in PROBES] + ["training_run", "influence", "cache_curve", "leak_probe"]


def training_measurements(session, cfg, wanted):
    """The tiny training run (with the influence map and the cache curve of its trained model) and the
    leak probe."""
    probes: dict[str, object] = {}
    seconds: dict[str, float] = {}
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
        probes["cache_curve"] = guarded(cache_probes.cache_curve, model, corpus["val"][:cfg["block_size"]])
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
    chosen = [(name, func) for name, needs_train, func in PROBES
              if not (needs_train and "train" not in session) and (wanted is None or name in wanted)]
    probes, seconds = run_probes(session, chosen)
    cfg = dict(DEFAULT_TRAINING, **job.get("training", {}))
    more, more_seconds = training_measurements(session, cfg, wanted)
    probes.update(more)
    seconds.update(more_seconds)
    return {"schema": RESULT_SCHEMA, "error": None, "probes": probes, "seconds": seconds,
            "has_train": "train" in session}
