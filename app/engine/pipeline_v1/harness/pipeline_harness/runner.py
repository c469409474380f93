"""The judge's run over pipeline-v1: every probe in order (the interface first).

measure(session, job) composes all requests to the agent through `session` and returns the result dict
that result.json holds."""

from dojo_kit.judge import run_probes

from . import RESULT_SCHEMA, data_probes, eval_probes, interface, optim_probes, resume_probes, step_probes

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
PROBE_NAMES = [name for name, _ in PROBES]


def measure(session, job):
    """Every probe's measurements for one job (the judge writes them as result.json)."""
    wanted = job.get("probes")  # None: all; tests select a few to stay fast
    probes, seconds = run_probes(session, [(n, f) for n, f in PROBES if wanted is None or n in wanted])
    return {"schema": RESULT_SCHEMA, "error": None, "probes": probes, "seconds": seconds}
