"""What the grading says, in the terms the coach reasons with.

`ScenarioFacts` is what the coach needs of a scenario version (questions, which bug is of which
kind, the leak guard), computed once per content hash. `Evidence` is one attempt's grading seen
the way its candidate sees it: a run shows only the public tests, so only a submit's planted-bug
results are used, and neither test ids nor test messages ever reach a tip.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

from app.coaching.guard import EMPTY_GUARD, LeakGuard, guard_for
from app.coaching.kinds_knowledge import KIND_KNOWLEDGE
from app.coaching.knowledge import COMPONENT_ADVICE, INTERFACE_ADVICE, Advice
from app.engine.interfaces import INTERFACES
from app.grading.result import COMPONENTS, BugResult, GradeError, GradeResult, TrainingSummary

# The tiny training run's tests belong to the "training" component but judge the whole model.
TRAINING_RUN_TESTS = frozenset({"training.learns", "training.finite", "training.not-too-good",
                                "training.overfit-one-batch", "training.runs"})
# The interface check fails when the grader cannot even call the code the way the interface says.
INTERFACE_TESTS = frozenset({"general.interface"})

Verdict = Literal["contradicted", "supported", "unknown"]


@dataclass(frozen=True)
class ScenarioFacts:
    slug: str
    questions: tuple[tuple[str, str], ...]  # (id, text) in the package's order
    bug_kinds: dict[str, str]  # bug id -> kind
    bug_components: dict[str, str]
    guard: LeakGuard
    # Every test the scenario's interface runs (None: not known): which version of the advice applies.
    test_ids: frozenset[str] | None = None

    def question_text(self, question_id: str | None) -> str | None:
        return next((text for qid, text in self.questions if qid == question_id), None)


_FACTS: OrderedDict[str, ScenarioFacts] = OrderedDict()
_FACTS_MAX = 64


def cached_facts(content_hash: str) -> ScenarioFacts | None:
    """The facts already computed for this content hash, if any."""
    cached = _FACTS.get(content_hash)
    if cached is not None:
        _FACTS.move_to_end(content_hash)
    return cached


def facts_for(content: dict[str, Any], content_hash: str) -> ScenarioFacts:
    """The facts of a scenario version's package, cached by its content hash."""
    cached = cached_facts(content_hash)
    if cached is not None:
        return cached
    from app.engine.package import ScenarioPackage

    try:
        package = ScenarioPackage.from_dict(content)
    except (KeyError, TypeError, ValueError):  # a hand-made version without a full package: no bugs to guard
        facts = ScenarioFacts(slug=str(content.get("slug", "")), questions=(), bug_kinds={}, bug_components={},
                              guard=EMPTY_GUARD)
    else:
        facts = ScenarioFacts(
            slug=package.slug,
            questions=tuple((str(q["id"]), str(q.get("text", ""))) for q in package.questions),
            bug_kinds={b.id: b.kind for b in package.bugs},
            bug_components={b.id: b.component for b in package.bugs},
            guard=guard_for(package),
            test_ids=frozenset(INTERFACES[package.interface].specs) if package.interface in INTERFACES else None,
        )
    _FACTS[content_hash] = facts
    if len(_FACTS) > _FACTS_MAX:
        _FACTS.popitem(last=False)
    return facts


@dataclass(frozen=True)
class Evidence:
    """One attempt's grading, as the coach may use it."""

    attempt_kind: str  # run | submit
    status: str
    error: GradeError | None
    failing: frozenset[str]  # applicable failing test ids (internal: never written into a tip)
    seen: frozenset[str]  # applicable test ids the candidate's view contains
    components_failing: tuple[str, ...]  # teaching order, tiny-run tests left out
    components_passing: tuple[str, ...]
    training: TrainingSummary | None
    bugs: tuple[BugResult, ...]  # only for submits
    facts: ScenarioFacts

    @property
    def checks_word(self) -> str:
        return "hidden checks" if self.attempt_kind == "submit" else "public checks"

    @property
    def training_run_failed(self) -> bool:
        return bool(self.failing & TRAINING_RUN_TESTS)

    @property
    def interface_failed(self) -> bool:
        return bool(self.failing & INTERFACE_TESTS)

    @property
    def graded(self) -> bool:
        return self.status in ("passed", "failed") and bool(self.seen)

    def advice(self, component: str) -> Advice:
        """What to say about a component, for this scenario's interface."""
        return COMPONENT_ADVICE[component].for_tests(self.facts.test_ids)

    @property
    def interface_advice(self) -> Advice:
        return INTERFACE_ADVICE.for_tests(self.facts.test_ids)

    def fixed_count(self) -> tuple[int, int] | None:
        """(fixed, planted) for a submit whose bugs are all verifiable, else None."""
        if self.attempt_kind != "submit" or not self.bugs:
            return None
        return sum(b.fixed for b in self.bugs), len(self.bugs)

    def kind_verdict(self, kind: str) -> Verdict:
        """Is a claim that this bug kind is dealt with borne out by the grading?"""
        if not self.graded:
            return "unknown"
        planted = [b for b in self.bugs if self.facts.bug_kinds.get(b.id) == kind and b.verifiable]
        if planted:
            return "supported" if all(b.fixed for b in planted) else "contradicted"
        knowledge = KIND_KNOWLEDGE.get(kind)
        tests = set(knowledge.tests) & self.seen if knowledge else set()
        if tests & self.failing:
            return "contradicted"
        return "supported" if tests else "unknown"

    def component_verdict(self, component: str) -> Verdict:
        if not self.graded:
            return "unknown"
        if component in self.components_failing:
            return "contradicted"
        return "supported" if component in self.components_passing else "unknown"

    def everything_verdict(self) -> Verdict:
        if not self.graded:
            return "unknown"
        return "contradicted" if self.failing else "supported"

    def component_of(self, kind: str) -> str:
        """The component a kind belongs to in this scenario (its planted bug's), else the catalog's."""
        for bug_id, bug_kind in self.facts.bug_kinds.items():
            if bug_kind == kind:
                return self.facts.bug_components[bug_id]
        knowledge = KIND_KNOWLEDGE.get(kind)
        return knowledge.component if knowledge else "general"


def evidence_for(*, attempt_kind: str, status: str, result: GradeResult | None, error: GradeError | None,
                 facts: ScenarioFacts) -> Evidence:
    """Evidence of one attempt (run or submit)."""
    # Only passed and failed are evidence: a test that did not apply or could not run says nothing.
    tests = [t for t in (result.tests if result else []) if t.status in ("passed", "failed")]
    failing = {t.id for t in tests if t.status == "failed"}
    by_component: dict[str, list[bool]] = {}
    for test in tests:
        if test.id not in TRAINING_RUN_TESTS | INTERFACE_TESTS:
            by_component.setdefault(test.component, []).append(test.status == "passed")
    return Evidence(
        attempt_kind=attempt_kind,
        status=status,
        error=error if error is not None else (result.error if result else None),
        failing=frozenset(failing),
        seen=frozenset(t.id for t in tests),
        components_failing=tuple(c for c in COMPONENTS if c in by_component and not all(by_component[c])),
        components_passing=tuple(c for c in COMPONENTS if c in by_component and all(by_component[c])),
        training=result.training if result else None,
        bugs=tuple(result.bugs) if result and attempt_kind == "submit" else (),
        facts=facts,
    )
