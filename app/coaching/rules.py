"""The rule ids the coach records on each tip, and what each one means.

A tip stores the ids of the rules that produced it (`coaching_tips.rules`), so an interviewer can
see why it was said and an admin can see which rules candidates find helpful. Ids are stable:
ratings are aggregated by them.
"""

from __future__ import annotations

from app.coaching.methods_knowledge import METHOD_NAMES

RULES: dict[str, str] = {
    "note.claim-contradicted": "The note claims a bug was caught, fixed or verified, and the checks on it still fail.",
    "note.claim-supported": "The note claims a bug was dealt with and the checks agree; the tip asks for the proof.",
    "note.claim-unverified": "The note says something was not (or not surely) verified; the tip says how to settle it.",
    "note.claim-unchecked": "The note makes a claim the grading could not check (the attempt did not run).",
    "note.vague": "The note names no method, component or bug, is very short, or hedges without a number.",
    "note.method-skipped": "The note says a verification method was not used; the tip suggests it.",
    "note.component-failing": "The note names a component whose checks still fail, without claiming it is fixed.",
    "note.missing-method": "The note names no check the evidence calls for; the tip suggests one.",
    "note.general": "Nothing specific was found in the note; the tip gives the answer a structure.",
    "component.failing": "A component fails checks that no note mentions.",
    "interface.failing": "The code does not follow the scenario's interface (the classes and signatures its brief "
    "names), so the other checks could not run.",
    "training-run.failing": "The tiny training run fails its checks and no note discusses it.",
    "error": "The attempt did not run (syntax, import, time, memory, output or crash).",
    "notes.empty": "The attempt has no notes; the tip says what a write-up should contain.",
    "progress.improved": "More planted bugs pass their checks than on the previous submit.",
    "progress.regressed": "Fewer planted bugs pass their checks than on the previous submit.",
    "progress.all-fixed": "Every planted bug passes its checks.",
    "progress.repeated-failure": "The same components failed on three submits in a row; the tip suggests another "
    "method.",
    "habit.submit-without-run": "A failed submit with no run or scratch experiment since the previous submit.",
    "habit.no-scratch": "Several submits and the scratch console never used.",
    "habit.rapid-fire": "Submits in quick succession, with little time for a check in between.",
    "guard.redacted": "Part of the tip was replaced because it came too close to the answer.",
    "llm": "Written by the configured language model from the same evidence, then checked like every tip.",
}
for _method in METHOD_NAMES:
    RULES[f"note.method.{_method}"] = f"The note names {METHOD_NAMES[_method]}; the tip says how to make it evidence."


def describe(rule_id: str) -> str:
    """A rule's meaning (unknown ids, e.g. from an older version, are shown as they are)."""
    return RULES.get(rule_id, rule_id)
