"""Entry point: read DOJO_INPUT, import the candidate, run every probe, write DOJO_OUT/result.json."""

import json
import math
import os
import sys
import time

import torch

from . import (
    RESULT_SCHEMA,
    attention_probes,
    data_probes,
    generation_probes,
    interface,
    loss_probes,
    model_probes,
    progress,
    structure_probes,
    tiny_run,
    train_probes,
)
from .errors import guarded
from .loading import CandidateImportError, import_candidate

DEFAULT_TRAINING = {
    "steps": 200, "batch_size": 16, "block_size": 32, "n_layer": 2, "n_head": 4, "n_embd": 48,
    "learning_rate": 3e-3, "seed": 1337, "eval_interval": 25, "eval_batches": 4,
    "leak_steps": 60, "sample_tokens": 80, "prompt": "MACBETH:\n",
}

PROBES = [  # (name, needs train.py, function); the interface first, as the checks judge it first
    ("interface", False, interface.interface),
    ("get_batch_targets", False, data_probes.get_batch_targets),
    ("get_batch_coverage", False, data_probes.get_batch_coverage),
    ("forward_shapes", False, model_probes.forward_shapes),
    ("loss_consistency", False, model_probes.loss_consistency),
    ("init_loss", False, model_probes.init_loss),
    ("positional_gradient", False, model_probes.positional_gradient),
    ("order_dependence", False, model_probes.order_dependence),
    ("causality_perturb", False, model_probes.causality_perturb),
    ("causality_extreme", False, model_probes.causality_extreme),
    ("causality_gradient", False, model_probes.causality_gradient),
    ("batch_independence", False, model_probes.batch_independence),
    ("eval_determinism", False, model_probes.eval_determinism),
    ("loss_invariances", False, loss_probes.loss_invariances),
    ("attention_rows", False, attention_probes.attention_rows),
    ("attention_scale", False, attention_probes.attention_scale),
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


def _clean(value):
    """JSON-safe: non-finite floats become strings so the file stays strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def measure(candidate_dir, harness_dir, job):
    """Run all probes; returns the result dict (never raises for candidate faults)."""
    torch.set_num_threads(1)
    names = [f[:-3] for f in job.get("files", ["model.py", "data.py"]) if f.endswith(".py")]
    progress.report("importing")
    try:
        mods = import_candidate(candidate_dir, names)
    except CandidateImportError as exc:
        return {"schema": RESULT_SCHEMA, "error": {"kind": exc.kind, "message": exc.message}, "probes": {}}
    mods["_dir"] = candidate_dir
    wanted = job.get("probes")  # None: all; tests select a few to stay fast
    probes, seconds = {}, {}
    selected = [(name, func) for name, needs_train, func in PROBES
                if not (needs_train and "train" not in mods) and (wanted is None or name in wanted)]
    for k, (name, func) in enumerate(selected, start=1):
        progress.report("probe", name=name, k=k, n=len(selected))
        t0 = time.perf_counter()
        probes[name] = guarded(func, candidate_dir, mods)
        seconds[name] = round(time.perf_counter() - t0, 3)
    cfg = dict(DEFAULT_TRAINING, **job.get("training", {}))
    if wanted is not None and "training_run" not in wanted and "leak_probe" not in wanted:
        return {"schema": RESULT_SCHEMA, "error": None, "probes": probes, "seconds": seconds,
                "has_train": "train" in mods}
    corpus = tiny_run.load_corpus(tiny_run.corpus_path(harness_dir))
    t0 = time.perf_counter()
    run = guarded(tiny_run.training_run, candidate_dir, mods, corpus, cfg)
    model = run.pop("model", None)
    probes["training_run"] = run
    if model is not None:
        window = corpus["val"][:min(16, cfg["block_size"])]
        probes["influence"] = guarded(model_probes.influence_matrix, candidate_dir, model, window,
                                      corpus["chars"])
    seconds["training_run"] = round(time.perf_counter() - t0, 3)
    if wanted is not None and "leak_probe" not in wanted:
        return {"schema": RESULT_SCHEMA, "error": None, "probes": probes, "seconds": seconds,
                "has_train": "train" in mods}
    t0 = time.perf_counter()
    progress.report("leak-probe")
    probes["leak_probe"] = guarded(tiny_run.leak_probe, candidate_dir, mods, len(corpus["chars"]), cfg)
    seconds["leak_probe"] = round(time.perf_counter() - t0, 3)
    return {"schema": RESULT_SCHEMA, "error": None, "probes": probes, "seconds": seconds,
            "has_train": "train" in mods}


def main():
    candidate_dir = os.environ["DOJO_CANDIDATE_DIR"]
    harness_dir = os.environ.get("DOJO_HARNESS_DIR") or os.path.dirname(os.path.dirname(__file__))
    with open(os.environ["DOJO_INPUT"], encoding="utf-8") as fh:
        job = json.load(fh)
    result = _clean(measure(candidate_dir, harness_dir, job))
    out_path = os.path.join(os.environ["DOJO_OUT"], "result.json")
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(result, fh, allow_nan=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
