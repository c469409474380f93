"""The leak guard: planted-bug lines, solution lines that differ from the starter, fix sentences, hidden test ids."""

from __future__ import annotations

from app.coaching.composer import guarded
from app.coaching.guard import code_fragments, guard_for
from app.coaching.tip import Tip
from app.engine.builtin import find_builtin


def test_code_fragments_are_the_expressions_of_a_prose_fix() -> None:
    assert code_fragments("Use math.sqrt(k.size(-1)).") == ["math.sqrt(k.size(-1))"]
    assert code_fragments("logits = logits / temperature.") == ["logits = logits / temperature"]
    assert code_fragments("Take y from data[i + 1 : i + 1 + block_size].") == ["data[i + 1 : i + 1 + block_size]"]
    assert code_fragments("Remove the lines that zero the position table and freeze it.") == []
    assert code_fragments("Pass logits to F.cross_entropy unchanged (log_softmax first is also fine).") == []


def test_guard_names_each_kind_of_leak() -> None:
    package = find_builtin("leaky-mask")
    guard = guard_for(package)
    bug = package.bug("mask-sees-next-token")
    assert any(leak.startswith("line:") for leak in guard.leaks(f"Try: {bug.edits[0].old.strip()}"))
    assert any(leak.startswith("line:") for leak in guard.leaks(bug.edits[0].new))
    assert any(leak.startswith("fix:") for leak in guard.leaks("Just USE   math.sqrt(k.size(-1)) there."))
    assert any(leak.startswith("fix:") for leak in guard.leaks(bug.explanation["fix"]))
    assert guard.leaks("The hidden test attention.causal-perturb fails.") == ["test id: attention.causal-perturb"]
    assert guard.leaks("Public checks such as training.learns are fine to name.") == []
    assert guard.leaks("Perturb later tokens and check earlier logits stay put.") == []


def test_solution_lines_that_differ_from_the_starter_are_forbidden() -> None:
    package = find_builtin("warm-up")
    guard = guard_for(package)
    solution_only = [line.strip() for line in package.solution_files["model.py"].splitlines()
                     if line.strip() and line not in package.starter_files["model.py"].splitlines()]
    assert solution_only and all(guard.leaks(f"maybe {line}") for line in solution_only if len(line) >= 6)


def test_guarded_replaces_leaking_parts_and_records_it() -> None:
    guard = guard_for(find_builtin("leaky-mask"))
    tip = Tip(note="find", component="attention", framing="Frame your answer around the mask.",
              pro_tip="Use torch.tril(torch.ones(T, T)) without a positive diagonal offset.",
              steps=("Print the mask.", "Check attention.rows-zero-on-future.", "Perturb later tokens.",
                     "Compare with the baseline."), rules=("note.claim-contradicted",))
    safe = guarded(tip, guard)
    assert safe is not None and not guard.tip_leaks(*safe.texts())
    assert safe.rules == ("note.claim-contradicted", "guard.redacted")
    assert "Print the mask." in safe.steps and len(safe.steps) >= 3
    assert guarded(safe, guard) is safe
