"""Entry point: read DOJO_INPUT, import the candidate, run every probe, write DOJO_OUT/result.json."""

import json
import os
import sys
import time

import torch
from dojo_harness import (
    attention_probes,
    data_probes,
    generation_probes,
    loss_probes,
    model_probes,
    progress,
    structure_probes,
    tiny_run,
)
from dojo_harness import train_probes as gpt_train_probes
from dojo_harness.errors import guarded
from dojo_harness.loading import CandidateImportError, import_candidate
from dojo_harness.runner import DEFAULT_TRAINING, _clean

from . import RESULT_SCHEMA, cache_probes, interface, layer_probes, rotary_probes, sampling_probes, train_probes
from .adapter import gpt_mods
from .loading import call

GPT, LLAMA = True, False  # run with gpt-v1's view of the modules (adapter.py), or with the candidate's own

PROBES = [  # (name, needs train.py, view, function); the interface first, as the checks judge it first
    ("interface", False, LLAMA, interface.interface),
    ("get_batch_targets", False, GPT, data_probes.get_batch_targets),
    ("get_batch_coverage", False, GPT, data_probes.get_batch_coverage),
    ("forward_shapes", False, GPT, model_probes.forward_shapes),
    ("loss_consistency", False, GPT, model_probes.loss_consistency),
    ("init_loss", False, GPT, model_probes.init_loss),
    ("order_dependence", False, GPT, model_probes.order_dependence),
    ("causality_perturb", False, GPT, model_probes.causality_perturb),
    ("causality_extreme", False, GPT, model_probes.causality_extreme),
    ("causality_gradient", False, GPT, model_probes.causality_gradient),
    ("batch_independence", False, GPT, model_probes.batch_independence),
    ("eval_determinism", False, GPT, model_probes.eval_determinism),
    ("loss_invariances", False, GPT, loss_probes.loss_invariances),
    ("attention_rows", False, GPT, attention_probes.attention_rows),
    ("attention_scale", False, LLAMA, rotary_probes.attention_scale),
    ("block_identity", False, GPT, structure_probes.block_identity),
    ("mlp_nonlinearity", False, GPT, structure_probes.mlp_nonlinearity),
    ("final_norm", False, GPT, structure_probes.final_norm),
    ("equivalence", False, GPT, model_probes.equivalence),
    ("overfit_one_batch", False, GPT, model_probes.overfit_one_batch),
    ("cache_agreement", False, LLAMA, cache_probes.cache_agreement),
    ("shift_invariance", False, LLAMA, cache_probes.shift_invariance),
    ("cache_heads", False, LLAMA, cache_probes.cache_heads),
    ("rotary", False, LLAMA, rotary_probes.rotary),
    ("norms", False, LLAMA, layer_probes.norms),
    ("gate", False, LLAMA, layer_probes.gate),
    ("parameter_gradients", False, LLAMA, layer_probes.parameter_gradients),
    ("generation", False, GPT, generation_probes.generation),
    ("seeded_generation", False, GPT, generation_probes.seeded_reproducible),
    ("top_p", False, LLAMA, sampling_probes.top_p),
    ("train_step_gradients", True, GPT, gpt_train_probes.train_step_gradients),
    ("train_step_clipping", True, GPT, gpt_train_probes.train_step_clipping),
    ("evaluate_mode", True, GPT, gpt_train_probes.evaluate_mode),
    ("lr_schedule", True, LLAMA, train_probes.lr_schedule),
    ("accumulation", True, LLAMA, train_probes.accumulation),
]
PROBE_NAMES = [name for name, _, _, _ in PROBES] + ["training_run", "influence", "cache_curve", "leak_probe"]


def cache_curve(model, window, prefill=4):
    """For display: per position of a text window, max |logits through the cache - full forward's|
    (prefill, then one token at a time) on the trained model."""
    model.eval()
    idx = window.view(1, -1)
    with torch.no_grad():
        full, _ = call(model, idx)
        cache, outs = model.new_cache(1), []
        for pos, size in ((0, prefill), *((p, 1) for p in range(prefill, idx.size(1)))):
            outs.append(call(model, idx[:, pos:pos + size], cache=cache, start_pos=pos)[0])
        diffs = (torch.cat(outs, dim=1) - full).abs().amax(dim=-1)[0]
    return {"prefill": prefill, "diffs": [float(v) for v in diffs]}


def _result(probes, seconds, mods):
    return {"schema": RESULT_SCHEMA, "error": None, "probes": probes, "seconds": seconds, "has_train": "train" in mods}


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
    views = {LLAMA: mods, GPT: gpt_mods(mods)}
    wanted = job.get("probes")  # None: all; tests select a few to stay fast
    probes, seconds = {}, {}
    selected = [(name, view, func) for name, needs_train, view, func in PROBES
                if not (needs_train and "train" not in mods) and (wanted is None or name in wanted)]
    for k, (name, view, func) in enumerate(selected, start=1):
        progress.report("probe", name=name, k=k, n=len(selected))
        t0 = time.perf_counter()
        probes[name] = guarded(func, candidate_dir, views[view])
        seconds[name] = round(time.perf_counter() - t0, 3)
    cfg = dict(DEFAULT_TRAINING, **job.get("training", {}))
    if wanted is not None and "training_run" not in wanted and "leak_probe" not in wanted:
        return _result(probes, seconds, mods)
    corpus = tiny_run.load_corpus(tiny_run.corpus_path(harness_dir))
    t0 = time.perf_counter()
    run = guarded(tiny_run.training_run, candidate_dir, views[GPT], corpus, cfg)
    model = run.pop("model", None)
    probes["training_run"] = run
    if model is not None:
        window = corpus["val"][:min(16, cfg["block_size"])]
        probes["influence"] = guarded(model_probes.influence_matrix, candidate_dir, model, window, corpus["chars"])
        probes["cache_curve"] = guarded(cache_curve, candidate_dir, model, corpus["val"][:cfg["block_size"]])
    seconds["training_run"] = round(time.perf_counter() - t0, 3)
    if wanted is not None and "leak_probe" not in wanted:
        return _result(probes, seconds, mods)
    t0 = time.perf_counter()
    progress.report("leak-probe")
    probes["leak_probe"] = guarded(tiny_run.leak_probe, candidate_dir, views[GPT], len(corpus["chars"]), cfg)
    seconds["leak_probe"] = round(time.perf_counter() - t0, 3)
    return _result(probes, seconds, mods)


def main():
    candidate_dir = os.environ["DOJO_CANDIDATE_DIR"]
    harness_dir = os.environ.get("DOJO_HARNESS_DIR") or os.path.dirname(os.path.dirname(__file__))
    with open(os.environ["DOJO_INPUT"], encoding="utf-8") as fh:
        job = json.load(fh)
    result = _clean(measure(candidate_dir, harness_dir, job))
    with open(os.path.join(os.environ["DOJO_OUT"], "result.json"), "w", encoding="utf-8") as fh:
        json.dump(result, fh, allow_nan=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
