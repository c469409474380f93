"""Sandbox overhead: the same torch harness under bubblewrap and in a plain subprocess.

Usage: .venv/bin/python scripts/bench_sandbox.py [--repeats 5] [--steps 300]
       [--scenario warm-up]   the engine's real grading harness on a built-in scenario's solution
       [--harness DIR --input FILE.json --candidate DIR]   any other harness
Prints per-run wall times, medians and the overhead of the sandbox as a share of a grading's time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from app.bench.harness_times import alternate, scenario_job, time_run
from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.job import HarnessJob, Limits
from app.sandbox.subprocess_runner import SubprocessRunner

TORCH_HARNESS = """
import json, os, sys, time
started = time.monotonic()
import torch
sys.path.insert(0, os.environ["DOJO_CANDIDATE_DIR"])
import model
with open(os.environ["DOJO_INPUT"]) as f:
    cfg = json.load(f)
torch.manual_seed(0)
net = model.build(vocab=65, dim=64)
opt = torch.optim.AdamW(net.parameters(), lr=3e-3)
data = torch.randint(0, 65, (4096,))
losses = []
for step in range(cfg["steps"]):
    idx = torch.randint(0, 4096 - 33, (16,))
    x = torch.stack([data[i:i + 32] for i in idx]); y = torch.stack([data[i + 1:i + 33] for i in idx])
    loss = torch.nn.functional.cross_entropy(net(x).reshape(-1, 65), y.reshape(-1))
    opt.zero_grad(); loss.backward(); opt.step()
    losses.append(float(loss))
with open(os.path.join(os.environ["DOJO_OUT"], "result.json"), "w") as f:
    json.dump({"final_loss": losses[-1], "seconds": time.monotonic() - started}, f)
"""

CANDIDATE = """
import torch
class Net(torch.nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, dim)
        self.pos = torch.nn.Embedding(32, dim)
        layer = torch.nn.TransformerEncoderLayer(dim, 4, 4 * dim, dropout=0.0, batch_first=True)
        self.body = torch.nn.TransformerEncoder(layer, 2)
        self.head = torch.nn.Linear(dim, vocab)
    def forward(self, x):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        h = self.emb(x) + self.pos(torch.arange(x.shape[1]))
        return self.head(self.body(h, mask=mask, is_causal=True))
def build(vocab, dim):
    return Net(vocab, dim)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--scenario", help="built-in scenario slug: time its real grading harness run")
    parser.add_argument("--harness", type=Path, help="harness dir with main.py (default: built-in torch harness)")
    parser.add_argument("--input", type=Path, help="JSON input for --harness")
    parser.add_argument("--candidate", type=Path, help="directory of candidate files for --harness")
    args = parser.parse_args()
    limits = Limits(cpu_seconds=300, wall_seconds=600)
    with tempfile.TemporaryDirectory() as tmp:
        if args.scenario:
            job = scenario_job(args.scenario, limits=limits)
        elif args.harness:
            files = {p.name: p.read_text() for p in sorted(args.candidate.glob("*.py"))} if args.candidate else {}
            job_input = json.loads(args.input.read_text()) if args.input else {}
            job = HarnessJob(candidate_files=files, harness_dir=args.harness, input=job_input, limits=limits)
        else:
            harness = Path(tmp) / "harness"
            harness.mkdir()
            (harness / "main.py").write_text(TORCH_HARNESS)
            job = HarnessJob(
                candidate_files={"model.py": CANDIDATE}, harness_dir=harness, input={"steps": args.steps}, limits=limits
            )
        empty_dir = Path(tmp) / "empty"
        empty_dir.mkdir()
        (empty_dir / "main.py").write_text(
            "import json, os\nopen(os.path.join(os.environ['DOJO_OUT'], 'result.json'), 'w').write('{}')\n"
        )
        empty = HarnessJob(candidate_files={}, harness_dir=empty_dir, input={}, limits=limits)
        plain, sandboxed = SubprocessRunner(), BwrapRunner()
        time_run(sandboxed, job)  # warm the page cache for both
        results = {}
        for label, the_job in (("empty harness", empty), (args.scenario or "torch grading", job)):
            paired = alternate(plain, sandboxed, the_job, args.repeats)
            plain_times, sandbox_times = paired.plain, paired.sandboxed
            results[label] = (plain_times, sandbox_times)
            print(f"{label}: subprocess {' '.join(f'{t:.3f}' for t in plain_times)}")
            print(f"{label}: bwrap      {' '.join(f'{t:.3f}' for t in sandbox_times)}")
        print("(min is the better estimate on a busy machine: load only ever adds time)")
        for label, (plain_times, sandbox_times) in results.items():
            for stat_name, stat in (("median", statistics.median), ("min", min)):
                plain_value, sandbox_value = stat(plain_times), stat(sandbox_times)
                overhead = sandbox_value - plain_value
                print(
                    f"{label:14s} {stat_name:6s} subprocess {plain_value:.3f}s  bwrap {sandbox_value:.3f}s  "
                    f"overhead {overhead * 1000:+.0f} ms ({overhead / plain_value * 100:+.1f}%)"
                )


if __name__ == "__main__":
    main()
