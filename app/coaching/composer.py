"""The rule coach for one attempt: a block per note, then failures no note mentions, then progress and habits.

Pure functions over the note readings, the evidence and the history; every tip passes the leak
guard last (app/coaching/guard.py), so nothing written here or quoted from a note can give a fix away.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import replace

from app.coaching.evidence import Evidence
from app.coaching.guard import LeakGuard
from app.coaching.history import History
from app.coaching.kinds_knowledge import KIND_KNOWLEDGE
from app.coaching.knowledge import (
    COMPONENT_ADVICE,
    COMPONENT_NAMES,
    ERROR_ADVICE,
    TRAINING_RUN_ADVICE,
    Advice,
)
from app.coaching.methods_knowledge import METHOD_NAMES, METHOD_SUGGESTIONS
from app.coaching.note_tips import FILLER_STEPS, MAX_STEPS, MIN_STEPS, note_tip
from app.coaching.reading import NoteReading, read_note
from app.coaching.tip import Tip

MAX_COMPONENT_TIPS = 3
MAX_TIPS = 8
# Methods to suggest when the same failure repeats, in the order they are worth trying.
FRESH_METHODS = ("perturbation", "oracle-loss", "overfit-one-batch", "gradient-checks", "baseline-comparison",
                 "unit-test-per-module", "shape-prints", "seeded-sampling")


def read_notes(notes: dict[str, str] | None, question_order: list[str]) -> list[NoteReading]:
    """Readings of the non-empty notes, in the scenario's question order (unknown ids last)."""
    filled = {str(k): str(v) for k, v in (notes or {}).items() if str(v or "").strip()}
    ordered = [q for q in question_order if q in filled] + sorted(q for q in filled if q not in question_order)
    return [read_note(q, filled[q]) for q in ordered]


def _advice_tip(advice: Advice, *, component: str | None, rule: str, why: str) -> Tip:
    return Tip(note=None, component=component, framing=advice.framing, pro_tip=advice.pro_tip,
               steps=advice.steps[:MAX_STEPS], rules=(rule,), why=(why,))


def _mentioned(readings: list[NoteReading], evidence: Evidence) -> tuple[set[str], bool]:
    """Components the notes talk about (directly or through a bug kind), and whether one discusses the run."""
    components: set[str] = set()
    run = False
    for reading in readings:
        components.update(reading.components)
        components.update(evidence.component_of(kind) for kind in reading.kinds if kind in KIND_KNOWLEDGE)
        run = run or bool({"tiny-run", "baseline-comparison", "overfit-one-batch"} & set(reading.methods))
    return components, run


def evidence_tips(readings: list[NoteReading], evidence: Evidence) -> list[Tip]:
    """Blocks for what failed that no note mentions (or why the attempt did not run)."""
    tips: list[Tip] = []
    if evidence.status == "error" and evidence.error is not None:
        advice = ERROR_ADVICE.get(evidence.error.kind)
        if advice is not None:
            tips.append(_advice_tip(advice, component=None, rule="error", why=f"error {evidence.error.kind}"))
    if evidence.interface_failed:
        tips.append(_advice_tip(evidence.interface_advice, component="general", rule="interface.failing",
                                why="the interface check fails"))
    mentioned, run_discussed = _mentioned(readings, evidence)
    unmentioned = [c for c in evidence.components_failing if c not in mentioned]
    for component in unmentioned[:MAX_COMPONENT_TIPS]:
        tips.append(_advice_tip(evidence.advice(component), component=component, rule="component.failing",
                                why=f"{component} checks fail; no note mentions {component}"))
    if evidence.training_run_failed and not run_discussed:
        tips.append(_advice_tip(TRAINING_RUN_ADVICE, component="training", rule="training-run.failing",
                                why="tiny-run checks fail; no note discusses the run"))
    if not readings and evidence.status in ("passed", "failed"):
        tips.append(Tip(
            note=None, component=None,
            framing="Frame your write-up around how you know each fix is right, not only what you changed.",
            pro_tip="Interviewers score the method: a short test per component and a baseline comparison beat a "
            "long list of edits.",
            steps=(METHOD_SUGGESTIONS["unit-test-per-module"], METHOD_SUGGESTIONS["overfit-one-batch"],
                   METHOD_SUGGESTIONS["baseline-comparison"], FILLER_STEPS[0]),
            rules=("notes.empty",), why=("no notes",)))
    return tips


def progress_tip(history: History | None, evidence: Evidence, readings: list[NoteReading]) -> Tip | None:
    """One block about progress across the challenge's attempts and the habits they show."""
    if history is None or history.current.kind != "submit":
        return None
    rules: list[str] = []
    why: list[str] = []
    steps: list[str] = []
    framing = "Frame your next submit around one hypothesis and the check that tests it."
    pro_tip = "A submit is the end of an experiment, not the experiment: run the check first, then submit."
    now, before = history.current.fixed, (history.previous_submit() or history.current).fixed
    if now and now[0] == now[1]:
        rules.append("progress.all-fixed")
        why.append(f"{now[0]} of {now[1]} fixed")
        framing = "Frame your write-up around how you verified each fix, now that every planted bug passes."
        pro_tip = "Finishing is half the interview; the other half is showing how you knew each fix was right."
        steps.append(f"All {now[1]} planted bugs pass their checks after {len(history.submits)} submit(s): list "
                     "them in the order you found them and the check that confirmed each.")
    elif now and before and history.previous_submit() is not None and now[0] > before[0]:
        rules.append("progress.improved")
        why.append(f"{before[0]} -> {now[0]} of {now[1]} fixed")
        steps.append(f"Progress: {now[0]} of {now[1]} planted bugs now pass their checks, up from {before[0]} on "
                     "your previous submit. Write down what changed and which check confirmed it.")
    elif now and before and history.previous_submit() is not None and now[0] < before[0]:
        rules.append("progress.regressed")
        why.append(f"{before[0]} -> {now[0]} of {now[1]} fixed")
        steps.append(f"{now[0]} of {now[1]} planted bugs pass their checks, down from {before[0]} on your previous "
                     "submit: compare the two versions and find what the last edit broke.")
    repeated = history.repeated_failure()
    if repeated:
        named = {m for r in readings for m in r.methods}
        fresh = next((m for m in FRESH_METHODS if m not in named), FRESH_METHODS[0])
        rules.append("progress.repeated-failure")
        why.append(f"same failure on {len(history.submits[-3:])} submits: {', '.join(repeated)}")
        framing = "Frame your next attempt around a different method: the same checks failed three submits in a row."
        steps.append(f"{COMPONENT_NAMES[repeated[0]].capitalize()} failed on your last three submits: switch method "
                     f"and try {METHOD_NAMES[fresh]}. {METHOD_SUGGESTIONS[fresh]}")
    failed = history.current.status == "failed"
    if failed and not history.ran_before_submitting():
        rules.append("habit.submit-without-run")
        why.append("no run or scratch since the previous submit")
        since = "since your last submit" if history.previous_submit() else "first"
        steps.append(f"You submitted without a Run {since}: Run gives the public checks and the training curves "
                     "in the same time, without spending a submit.")
    if failed and len(history.submits) >= 2 and not history.used_scratch():
        rules.append("habit.no-scratch")
        why.append("scratch console never used")
        steps.append("Use the scratch console for one-off experiments (print a batch, perturb a token, time a "
                     "forward pass) instead of submitting to find out.")
    if failed and history.rapid_fire():
        rules.append("habit.rapid-fire")
        why.append("submits in quick succession")
        steps.append("Your submits come quickly one after another: before the next one, write down what you expect "
                     "it to fix and the check that says so.")
    if not rules:
        return None
    for filler in (FILLER_STEPS[2], FILLER_STEPS[1]):
        if len(steps) < MIN_STEPS:
            steps.append(filler)
    return Tip(note=None, component=None, framing=framing, pro_tip=pro_tip, steps=tuple(steps[:MAX_STEPS]),
               rules=tuple(rules), why=tuple(why))


def guarded(tip: Tip, guard: LeakGuard, test_ids: Set[str] | None = None) -> Tip | None:
    """The tip with any field that comes too close to the answer replaced; None when too little is left.
    `test_ids` (the interface's tests) pick the version of the advice that fills the gaps."""
    if any(guard.leaks(reason) for reason in tip.why):  # reasons quote the note's words: keep only safe ones
        tip = replace(tip, why=tuple(reason for reason in tip.why if not guard.leaks(reason)))
    if not guard.tip_leaks(*tip.texts()):
        return tip
    fallback = COMPONENT_ADVICE.get(tip.component or "", COMPONENT_ADVICE["general"]).for_tests(test_ids)
    framing = tip.framing if not guard.leaks(tip.framing) else fallback.framing
    pro_tip = tip.pro_tip if not guard.leaks(tip.pro_tip) else fallback.pro_tip
    steps = [s for s in tip.steps if not guard.leaks(s)]
    for extra in (*fallback.steps, *FILLER_STEPS):
        if len(steps) >= MIN_STEPS:
            break
        if extra not in steps and not guard.leaks(extra):
            steps.append(extra)
    if len(steps) < MIN_STEPS or guard.tip_leaks(framing, pro_tip):
        return None
    return replace(tip, framing=framing, pro_tip=pro_tip, steps=tuple(steps)).with_rules("guard.redacted")


def compose(*, readings: list[NoteReading], evidence: Evidence, history: History | None,
            guard: LeakGuard) -> list[Tip]:
    """Every tip of one attempt, guarded, in display order."""
    tips = [note_tip(reading, evidence) for reading in readings]
    tips += evidence_tips(readings, evidence)
    progress = progress_tip(history, evidence, readings)
    if progress is not None:
        tips.append(progress)
    safe = [g for g in (guarded(t, guard, evidence.facts.test_ids) for t in tips) if g is not None]
    notes = [t for t in safe if t.note is not None]
    return notes + [t for t in safe if t.note is None][: max(0, MAX_TIPS - len(notes))]
