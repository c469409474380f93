"""One suggestion block per note: about what the note claims, the methods it names, what it leaves vague.

Findings are collected in priority order; the first one frames the block, every finding adds steps,
and the block keeps three to five of them. A contradicted claim is flagged with how to check it,
never with what to change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.coaching.evidence import Evidence
from app.coaching.kinds_knowledge import KIND_KNOWLEDGE, stand_ins
from app.coaching.knowledge import COMPONENT_NAMES
from app.coaching.methods_knowledge import METHOD_ADVICE, METHOD_SUGGESTIONS
from app.coaching.reading import Claim, NoteReading
from app.coaching.run_story import run_steps
from app.coaching.tip import Tip

MIN_STEPS, MAX_STEPS = 3, 5
FILLER_STEPS = (
    "Keep the answer to four beats: the symptom you saw, the check you ran, the root cause, the evidence it holds.",
    "Quote one number or assertion for every claim you make.",
    "Say what you would check first next time, and why that check is the cheapest.",
)
FALLBACK_FRAMING = "Structure your answer as the symptom, the check and the evidence."
FALLBACK_PRO_TIP = "Name the check behind every claim, and the number it gave."


@dataclass
class Finding:
    rule: str
    why: str
    steps: tuple[str, ...]
    framing: str | None = None
    pro_tip: str | None = None
    component: str | None = None


@dataclass
class Block:
    findings: list[Finding] = field(default_factory=list)

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)


Subject = tuple[str, str, tuple[str, ...], str]  # (name, component, check steps, verdict)


def _subject(claim: Claim, evidence: Evidence) -> Subject:
    """What a claim is about: its bug kinds if it names any, else its components, else everything.

    With several, the first the grading contradicts wins (the claim covers it), then the first it supports;
    kinds planted in this scenario come first, since their verdict is the planted bug's own, and a kind
    named in words that also name a planted one stands for it (kinds_knowledge.RELATED).
    """
    planted = set(evidence.facts.bug_kinds.values())
    named = dict.fromkeys(k for kind in claim.kinds for k in stand_ins(kind, planted))
    kinds = sorted(named, key=lambda kind: kind not in planted)
    subjects: list[Subject] = [
        (KIND_KNOWLEDGE[kind].name, evidence.component_of(kind), KIND_KNOWLEDGE[kind].checks,
         evidence.kind_verdict(kind)) for kind in kinds
    ] or [
        (COMPONENT_NAMES[c], c, evidence.advice(c).steps, evidence.component_verdict(c)) for c in claim.components
    ]
    if not subjects:
        failing = evidence.components_failing or ("general",)
        return "every bug", failing[0], evidence.advice(failing[0]).steps, evidence.everything_verdict()
    for verdict in ("contradicted", "supported"):
        for subject in subjects:
            if subject[3] == verdict:
                return subject
    return subjects[0]


def _claim_findings(reading: NoteReading, evidence: Evidence) -> list[Finding]:
    findings: list[Finding] = []
    seen: set[tuple[str, bool]] = set()
    for claim in reading.claims:
        if not claim.about_something:
            continue
        name, component, checks, verdict = _subject(claim, evidence)
        if (name, claim.negated) in seen:  # "I fixed it and verified it": one finding per subject
            continue
        seen.add((name, claim.negated))
        said = f'you "{claim.phrase}" it'
        if claim.negated:
            findings.append(Finding(
                "note.claim-unverified", f"claim {claim.verb} negated about {name}", checks[:3], component=component,
                framing=f"Start by outlining the one check that would settle {name}: your note says it was not "
                "verified, and an interviewer will ask how you would.",
                pro_tip="Saying what you did not verify is honest; naming the check you would run makes it strong.",
            ))
        elif verdict == "contradicted":
            if name == "every bug":
                failing = [COMPONENT_NAMES[c] for c in evidence.components_failing[:3]] or ["the tiny training run"]
                where = ", ".join(failing[:-1]) + (" and " if len(failing) > 1 else "") + failing[-1]
                said, tail = f'you "{claim.phrase}" them all', ""
            else:
                where, tail = COMPONENT_NAMES.get(component, component), f", where a problem with {name} shows up"
            findings.append(Finding(
                "note.claim-contradicted",
                f'claim {claim.verb} ("{claim.phrase}") about {name}; {evidence.checks_word} on {component} fail',
                checks[:3] + (
                    "Run your check against this exact submission before writing that it is done, and quote "
                    "what it printed.",), component=component,
                framing=f"Frame your answer around how you know {name} is dealt with: your note says {said}, but "
                f"this submission still fails {evidence.checks_word} on {where}{tail}.",
                pro_tip="Treat your own claim as a hypothesis: re-run a small test that fails when it is wrong, on "
                "the code you are about to submit, and only then write it down.",
            ))
        elif verdict == "supported":
            findings.append(Finding(
                "note.claim-supported", f"claim {claim.verb} about {name}; the checks agree",
                (f"Name the symptom that first pointed you at {name}.",
                 "Name the check that shows it is right now, and the number or assertion it gave.",
                 checks[0]), component=component,
                framing=f"Frame your answer around the evidence for {name}: the checks agree with your note, so "
                "show the test that convinced you, not only the conclusion.",
                pro_tip="\"It works now\" is a story; \"the loss at step 0 was 4.13 against ln V = 4.13\" is "
                "evidence. Interviewers score the evidence.",
            ))
        else:
            if not evidence.graded:
                unseen = "this attempt gave the grader nothing to confirm it with"
            elif evidence.attempt_kind == "run":
                unseen = "a Run shows only the public checks, and none of them covers it"
            else:
                unseen = "none of the checks that ran on this submission covers it"
            findings.append(Finding(
                "note.claim-unchecked", f"claim {claim.verb} about {name}; no check to compare",
                checks[:2], component=component,
                framing=f"Frame your answer around the check that shows {name} is right: {unseen}.",
            ))
    return findings


def _method_findings(reading: NoteReading, evidence: Evidence) -> list[Finding]:
    findings = []
    for method in reading.methods[:2]:
        advice = METHOD_ADVICE.get(method)
        if advice is None:
            continue
        steps = advice.steps
        if method == "tiny-run":
            steps = run_steps(evidence.training) or advice.steps
        elif method == "unit-test-per-module" and evidence.components_failing:
            names = ", ".join(COMPONENT_NAMES[c] for c in evidence.components_failing[:2])
            steps = advice.steps[:2] + (f"This submission still fails {evidence.checks_word} on {names}: say "
                                        "which of your module tests covers that part, or write one that does.",)
        findings.append(Finding(f"note.method.{method}", f"method {method} (\"{reading.phrase_of('method', method)}\")",
                                steps, framing=advice.framing, pro_tip=advice.pro_tip))
    for method in reading.skipped_methods[:1]:
        if method in METHOD_SUGGESTIONS:
            findings.append(Finding("note.method-skipped", f"method {method} named as not done",
                                    (METHOD_SUGGESTIONS[method],)))
    return findings


def _vague_finding(reading: NoteReading) -> Finding | None:
    if not reading.vague:
        return None
    hedge = max(reading.hedges, key=len, default=None)
    if reading.experience:
        first = (f'"{reading.experience[0]}" says where you looked first; add what you saw this time that '
                 "confirmed it: a printed batch, a number, a failing assertion.")
    elif hedge:
        first = (f'Replace "{hedge}" with what you actually checked: the input, the expected value and the value '
                 "you got.")
    else:
        first = "Name the method you used and the component you used it on."
    return Finding(
        "note.vague", "; ".join(reading.vague_reasons), (first, FILLER_STEPS[1]),
        framing="Structure your answer as symptom, check, root cause and evidence, one sentence each.",
        pro_tip="Specific beats long: one number you measured says more than a paragraph of reassurance.",
    )


def _component_findings(reading: NoteReading, evidence: Evidence, claimed: set[str]) -> list[Finding]:
    findings = []
    for component in reading.components:
        if component in evidence.components_failing and component not in claimed:
            advice = evidence.advice(component)
            findings.append(Finding("note.component-failing", f"names {component}; its checks fail",
                                    advice.steps[:2], framing=advice.framing, pro_tip=advice.pro_tip,
                                    component=component))
            break
    return findings


def _missing_method_finding(reading: NoteReading, evidence: Evidence) -> Finding | None:
    """Suggest the check the evidence calls for when the note names none."""
    if reading.methods:
        return None
    if evidence.training_run_failed:
        method = "baseline-comparison"
    elif "attention" in evidence.components_failing:
        method = "perturbation"
    elif "loss" in evidence.components_failing:
        method = "oracle-loss"
    else:
        method = "unit-test-per-module"
    return Finding("note.missing-method", f"no method named; suggests {method}", (METHOD_SUGGESTIONS[method],))


def note_tip(reading: NoteReading, evidence: Evidence) -> Tip:
    """The suggestion block answering one note."""
    block = Block()
    claims = _claim_findings(reading, evidence)
    for finding in sorted(claims, key=lambda f: f.rule != "note.claim-contradicted"):
        block.add(finding)
    for finding in _method_findings(reading, evidence):
        block.add(finding)
    claimed = {f.component for f in claims if f.component}
    for finding in _component_findings(reading, evidence, claimed):
        block.add(finding)
    for optional in (_vague_finding(reading), _missing_method_finding(reading, evidence)):
        if optional is not None:
            block.add(optional)
    if not block.findings:
        block.add(Finding("note.general", "nothing specific found", FILLER_STEPS,
                          framing="Structure your answer as the symptom you saw, the check you ran and what it showed.",
                          pro_tip="Interviewers score the method: a short test per component and a baseline "
                          "comparison beat a long list of edits."))
    return _assemble(reading.question_id, block)


def _assemble(note: str, block: Block) -> Tip:
    lead = next((f for f in block.findings if f.framing), None)
    framing = lead.framing if lead and lead.framing else FALLBACK_FRAMING
    pro_tip = next((f.pro_tip for f in block.findings if f.pro_tip), None) or FALLBACK_PRO_TIP
    # The first finding gives up to three steps, every other finding one, then the rest in turn: the
    # block stays about its main point without dropping the others.
    queues = [list(f.steps) for f in block.findings]
    order = queues[0][:3] + [q[0] for q in queues[1:] if q]
    rest = queues[0][3:] + [step for q in queues[1:] for step in q[1:]]
    steps: list[str] = []
    for step in order + rest + list(FILLER_STEPS):
        if step not in steps and (len(steps) < MIN_STEPS or step not in FILLER_STEPS):
            steps.append(step)
        if len(steps) == MAX_STEPS:
            break
    rules = tuple(dict.fromkeys(f.rule for f in block.findings))
    component = next((f.component for f in block.findings if f.component), None)
    return Tip(note=note, component=component, framing=framing, pro_tip=pro_tip, steps=tuple(steps),
               rules=rules, why=tuple(f.why for f in block.findings))
