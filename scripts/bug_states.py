"""Per-bug verdicts over every state a candidate can reach in each built-in, graded in the sandbox.

For each built-in with n planted bugs, 1 + 2n states: the starter (every bug present), each bug fixed
alone (the others present) and each bug left alone (the others fixed). Each state is graded once with
the real grader; what the harness measured (every test's status) is kept in a JSON file, so the per-bug
logic can be judged again on the same runs without the sandbox:

    nice .venv/bin/python scripts/bug_states.py collect --out var/bug_states.json   # minutes: grades every state
    .venv/bin/python scripts/bug_states.py count var/bug_states.json                  # seconds: today's logic

`count` prints each wrong verdict ("fixed" for a bug still there, "not fixed" for a bug that is gone)
and each "cannot tell yet", then the totals. The graded verdicts of the collection run are counted too
(`--as-graded`), which is what the grader said when the states were collected.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine.edits import apply_edits  # noqa: E402
from app.engine.package import ScenarioPackage  # noqa: E402


def states(package: ScenarioPackage) -> list[tuple[str, list[str], dict[str, str]]]:
    """(name, bugs present, files) of the starter, each bug fixed alone and each bug left alone."""
    ids = [b.id for b in package.bugs]

    def planted(present: list[str]) -> dict[str, str]:
        files = dict(package.solution_files)
        for bug in package.bugs:
            if bug.id in present:
                files = apply_edits(files, list(bug.edits), where=f"bugs[{bug.id}]")
        return files

    out = [("starter", ids, dict(package.starter_files))]
    for bug in ids:
        rest = [b for b in ids if b != bug]
        out.append((f"fixed:{bug}", rest, planted(rest)))
    for bug in ids:
        out.append((f"left:{bug}", [bug], package.mutant_files(bug)))
    return out


def collect(out_path: Path, only: list[str], workers: int) -> None:
    from app.engine.builtin import builtin_packages
    from app.grading.grader import grade_files
    from app.grading.reference import ensure_reference
    from app.sandbox import get_runner

    runner = get_runner()
    doc: dict[str, Any] = json.loads(out_path.read_text()) if out_path.is_file() else {"scenarios": {}}
    for package in builtin_packages():
        if only and package.slug not in only:
            continue
        started = time.monotonic()
        report = ensure_reference(package=package, runner=runner)
        entry: dict[str, Any] = {"report": report.to_dict(measurements=False), "states": []}

        def grade(state: tuple[str, list[str], dict[str, str]], report: Any = report,
                  package: ScenarioPackage = package) -> dict[str, Any]:
            name, present, files = state
            result = grade_files(package=package, files=files, runner=runner, reference=report)
            return {"name": name, "present": present, "status": result.status,
                    "error": None if result.error is None else result.error.model_dump(),
                    "tests": {t.id: t.status for t in result.tests},
                    "reasons": {t.id: t.reason for t in result.tests if t.reason},
                    "graded_bugs": [b.model_dump() for b in result.bugs], "score": result.score}

        with ThreadPoolExecutor(max_workers=workers) as pool:
            entry["states"] = list(pool.map(grade, states(package)))
        doc["scenarios"][package.slug] = entry
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(doc, indent=1))
        print(f"{package.slug}: {len(entry['states'])} states in {time.monotonic() - started:.0f} s", flush=True)


def judge(entry: dict[str, Any], state: dict[str, Any]) -> list[dict[str, Any]]:
    """Today's per-bug verdicts for one collected state (the grader's own function on its readings)."""
    from app.engine.validator import ValidationReport
    from app.grading.result import GradeError, TestResult
    from app.grading.scoring import bug_verdicts

    report = ValidationReport.from_dict(entry["report"])
    if state["error"] is not None:
        return [b.model_dump() for b in bug_verdicts(report, None, GradeError(**state["error"]))]
    verdicts = [TestResult(id=test, component=test.split(".")[0], passed=status == "passed",
                           status=status, reason=state["reasons"].get(test))
                for test, status in state["tests"].items()]
    return [b.model_dump() for b in bug_verdicts(report, verdicts)]


def verdict_word(bug: dict[str, Any]) -> str:
    if bug["fixed"]:
        return "fixed"
    if bug.get("verdict") == "cannot_tell" or not bug["verifiable"]:
        return "cannot tell"
    return "not fixed"


def count(path: Path, as_graded: bool, quiet: bool) -> dict[str, int]:
    doc = json.loads(path.read_text())
    totals = {"states": 0, "verdicts": 0, "wrong": 0, "fixed_while_present": 0, "not_fixed_while_gone": 0,
              "cannot_tell": 0, "scored_present": 0}
    for slug, entry in sorted(doc["scenarios"].items()):
        for state in entry["states"]:
            totals["states"] += 1
            bugs = state["graded_bugs"] if as_graded else judge(entry, state)
            present = set(state["present"])
            for bug in bugs:
                totals["verdicts"] += 1
                word = verdict_word(bug)
                there = bug["id"] in present
                wrong = (word == "fixed" and there) or (word == "not fixed" and not there)
                if word == "cannot tell":
                    totals["cannot_tell"] += 1
                if word == "fixed" and there:
                    totals["fixed_while_present"] += 1
                    totals["scored_present"] += 1
                if word == "not fixed" and not there:
                    totals["not_fixed_while_gone"] += 1
                if wrong:
                    totals["wrong"] += 1
                if not quiet and (wrong or word == "cannot tell"):
                    truth = "present" if there else "gone"
                    print(f"{'WRONG' if wrong else '     '} {slug:22} {state['name']:34} {bug['id']:28} "
                          f"{word:10} (is {truth})")
    print(" ".join(f"{k}={v}" for k, v in totals.items()))
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="grade every state of every built-in in the sandbox")
    c.add_argument("--out", type=Path, default=Path("var/bug_states.json"))
    c.add_argument("--only", nargs="*", default=[], help="built-in slugs (default: all)")
    c.add_argument("--workers", type=int, default=2)
    n = sub.add_parser("count", help="count wrong per-bug verdicts over the collected states")
    n.add_argument("path", type=Path, nargs="?", default=Path("var/bug_states.json"))
    n.add_argument("--as-graded", action="store_true", help="count the verdicts the collection run gave")
    n.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    if args.command == "collect":
        collect(args.out, args.only, args.workers)
    else:
        count(args.path, args.as_graded, args.quiet)


if __name__ == "__main__":
    main()
