"""Regenerate fixtures/builtin_gradings.json: real gradings of every built-in's starter, each
single-bug mutant and one partial fix, for the coach's no-leak and corpus tests.

Grading every variant takes a while (tens of sandboxed runs), so the tests read the stored results
instead of grading again; test_fixture_matches_builtins fails when a scenario's bugs change.

    .venv/bin/python -m tests.coaching.build_gradings      # from the repository root
    .venv/bin/python -m tests.coaching.build_gradings norm-and-gate cache-drift   # only these, kept others

With slugs, only those built-ins are graded again; the other stored gradings are kept as they are
and those of scenarios no longer built in are dropped.
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from app.engine.builtin import builtin_packages
from app.engine.edits import apply_edits
from app.engine.package import ScenarioPackage
from app.grading.grader import grade_files
from app.grading.reference import ensure_reference
from app.sandbox import get_runner

FIXTURE = Path(__file__).parent / "fixtures" / "builtin_gradings.json"
CURVE_POINTS = 12  # enough of each loss curve to be realistic, small enough to commit


def variants(package: ScenarioPackage) -> dict[str, tuple[list[str], dict[str, str]]]:
    """name -> (bugs left in, files): the starter, each single-bug mutant, every other bug left in."""
    out = {"starter": ([b.id for b in package.bugs], package.starter_files)}
    for bug in package.bugs:
        out[f"mutant:{bug.id}"] = ([bug.id], package.mutant_files(bug.id))
    kept = [b for b in package.bugs][::2]
    files = dict(package.solution_files)
    for bug in kept:
        files = apply_edits(files, list(bug.edits), where=bug.id)
    out["partial"] = ([b.id for b in kept], files)
    return out


def _trim(result: dict[str, Any]) -> dict[str, Any]:
    training = result.get("training") or {}
    for key in ("influence", "baseline_influence"):
        training.pop(key, None)
    stride = max(1, len(training.get("steps") or []) // CURVE_POINTS)
    for key in ("steps", "train_loss", "val_loss", "baseline_train_loss", "baseline_val_loss"):
        if key in training:
            training[key] = training[key][::stride]
    for key in ("sample", "baseline_sample"):
        if training.get(key):
            training[key] = training[key][:160]
    for key in ("cache_agreement", "baseline_cache_agreement"):
        if training.get(key):  # three significant digits: a cached forward that agrees is off by ~1e-7
            diffs = training[key].get("diffs") or []
            training[key]["diffs"] = [float(f"{v:.3g}") if isinstance(v, float) else v for v in diffs]
    for test in result.get("tests", []):
        test["message"] = "" if test["passed"] else test["message"][:160]  # the coach never reads messages
    for key, value in list(training.items()):
        if isinstance(value, float):
            training[key] = round(value, 4)
        elif isinstance(value, list):
            training[key] = [round(v, 4) if isinstance(v, float) else v for v in value]
    return result


def write(data: dict[str, Any]) -> None:
    """One line per grading, so a regenerated fixture diffs by variant."""
    blocks = []
    for slug in sorted(data):
        rows = [f"  {json.dumps(name)}: {json.dumps(data[slug][name], sort_keys=True)}" for name in sorted(data[slug])]
        blocks.append(json.dumps(slug) + ": {\n" + ",\n".join(rows) + "\n}")
    FIXTURE.write_text("{\n" + ",\n".join(blocks) + "\n}\n", encoding="utf-8")


def main(slugs: list[str]) -> None:
    runner = get_runner()
    packages = builtin_packages()
    unknown = set(slugs) - {p.slug for p in packages}
    if unknown:
        raise SystemExit(f"not built in: {', '.join(sorted(unknown))}")
    data: dict[str, Any] = {}
    if slugs:
        stored = json.loads(FIXTURE.read_text(encoding="utf-8"))
        data = {p.slug: stored[p.slug] for p in packages if p.slug in stored and p.slug not in slugs}
    for package in packages:
        if slugs and package.slug not in slugs:
            continue
        started = time.monotonic()
        reference = ensure_reference(package=package, runner=runner)
        jobs = variants(package)

        def grade(files: dict[str, str], package: ScenarioPackage = package,
                  reference: Any = reference) -> dict[str, Any]:
            return grade_files(package=package, files=files, runner=runner, reference=reference).to_dict()

        with ThreadPoolExecutor(max_workers=2) as pool:
            graded = dict(zip(jobs, pool.map(grade, [files for _left, files in jobs.values()]), strict=True))
        data[package.slug] = {
            name: {"bugs_left": jobs[name][0], "result": _trim(result)} for name, result in graded.items()
        }
        seconds = round(time.monotonic() - started)
        statuses = {name: r["status"] for name, r in graded.items()}
        print(package.slug, package.content_hash[:12], f"{seconds}s", statuses, flush=True)  # noqa: T201
    write(data)


if __name__ == "__main__":
    main(sys.argv[1:])
