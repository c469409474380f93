"""The pipeline-v1 agent runs the candidate's torch.optim optimizer without importing torch._dynamo (a
second of every grading), and the stand-in changes nothing a step computes (pipeline_harness/eager_dynamo.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_styles import template_files

# Appended to the template's train.py: a train_step that fails once the real torch._dynamo is imported.
WATCH = '''
import sys as _sys

_own_train_step = train_step


def train_step(*args, **kwargs):
    loss = _own_train_step(*args, **kwargs)
    if "torch._dynamo.eval_frame" in _sys.modules:
        raise RuntimeError("torch._dynamo was imported")
    return loss
'''


def test_a_grading_agent_steps_torch_optim_without_importing_dynamo(pipeline_measure) -> None:
    files = template_files()
    files["train.py"] += WATCH
    result = pipeline_measure(files, probes=["interface", "optimizer", "accumulation", "scaler", "resume"])
    assert result["error"] is None
    failed = {name: probe["exception"] for name, probe in result["probes"].items()
              if isinstance(probe, dict) and "exception" in probe}
    assert failed == {}


# Steps of torch.optim.AdamW with decay groups, under a GradScaler and bfloat16 autocast, clipped, and a
# state_dict round trip; then torch.compile asks the stand-in for the real module. Prints JSON.
SCRIPT = '''
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "stand-in":
    from pipeline_harness import eager_dynamo
    eager_dynamo.install()
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8))
decay = [p for p in model.parameters() if p.dim() >= 2]
rest = [p for p in model.parameters() if p.dim() < 2]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}], lr=1e-2)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8)
for _ in range(5):
    with torch.autocast("cpu", torch.bfloat16):
        out = model(torch.randn(4, 16))
    scaler.scale(out.float().pow(2).mean()).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    opt.zero_grad(set_to_none=True)
opt.load_state_dict(opt.state_dict())
digest = hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in model.parameters())).hexdigest()
imported = "torch._dynamo.eval_frame" in sys.modules
compiled = torch.compile(lambda x: x * 2 + 1, backend="eager")(torch.ones(3)).tolist()
real = type(sys.modules["torch._dynamo"]).__name__ == "module" and "torch._dynamo.eval_frame" in sys.modules
print(json.dumps({"digest": digest, "dynamo_before_compile": imported, "compiled": compiled, "real_after": real}))
'''


@pytest.mark.slow
def test_the_stand_in_steps_as_torch_does_and_hands_over_to_the_real_module(pipeline_harness_dir: Path) -> None:
    runs = {}
    for mode in ("stand-in", "torch"):
        done = subprocess.run([sys.executable, "-I", "-B", "-c", SCRIPT, str(pipeline_harness_dir), mode],
                              capture_output=True, text=True, timeout=300,
                              env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr[-2000:]
        runs[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    assert runs["stand-in"]["digest"] == runs["torch"]["digest"]  # the same parameters, bit for bit
    assert runs["stand-in"]["dynamo_before_compile"] is False
    assert runs["torch"]["dynamo_before_compile"] is True  # what the stand-in saves
    for run in runs.values():
        assert run["compiled"] == [3.0, 3.0, 3.0] and run["real_after"] is True
