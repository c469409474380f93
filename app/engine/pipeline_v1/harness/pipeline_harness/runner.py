"""The judge's run over pipeline-v1: every probe in order (the interface first).

measure(session, job) composes all requests to the agent through `session` and returns the result dict
that result.json holds."""

import os
import time

from dojo_kit.judge import guarded, run_probes

from . import RESULT_SCHEMA, data_probes, eval_probes, interface, optim_probes, resume_probes, step_probes, tiny_run

HARNESS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBES = [
    ("interface", interface.interface),
    ("collate", data_probes.collate),
    ("split", data_probes.split),
    ("batches", data_probes.batches),
    ("optimizer", optim_probes.optimizer),
    ("schedule", optim_probes.schedule),
    ("accumulation", step_probes.accumulation),
    ("scaler", step_probes.scaler),
    ("evaluate", eval_probes.evaluate),
    ("resume", resume_probes.resume),
]
PROBE_NAMES = [name for name, _ in PROBES] + ["training_run"]


def measure(session, job):
    """Every probe's measurements for one job (the judge writes them as result.json)."""
    wanted = job.get("probes")  # None: all; tests select a few to stay fast
    probes, seconds = run_probes(session, [(n, f) for n, f in PROBES if wanted is None or n in wanted])
    if wanted is None or "training_run" in wanted:
        cfg = dict(tiny_run.DEFAULT_TRAINING, **job.get("training", {}))
        t0 = time.perf_counter()
        probes["training_run"] = guarded(tiny_run.training_run, session, HARNESS_DIR, cfg)
        seconds["training_run"] = round(time.perf_counter() - t0, 3)
    return {"schema": RESULT_SCHEMA, "error": None, "probes": probes, "seconds": seconds}
