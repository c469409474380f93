"""The attempt object of the JSON API, shaped for who is looking at it.

Candidates never see planted-bug ids, hidden test ids or hidden tests' messages (those can name the
fix); interviewers and admins see everything the grader reported plus the score.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NotRequired

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict  # what pydantic needs to describe one on Python 3.11

from app.attempts import numbers
from app.attempts.models import Attempt
from app.attempts.points import points
from app.coaching import service as coaching_service
from app.coaching.tip import ShownTip
from app.grading.result import (
    BugResult,
    GradeError,
    GradeResult,
    PipelineSummary,
    ScratchOutput,
    TestResult,
    TrainingSummary,
)
from app.scenarios.models import Scenario, ScenarioVersion
from app.users.models import Role, User

# What candidates see of the known-good run: its curves, sample, influence map and cache agreement, nothing
# else (ShownTraining below keeps exactly these; the other baseline field is for interviewers and admins).
CANDIDATE_BASELINE_FIELDS = frozenset({
    "baseline_val_loss", "baseline_final_val_loss", "baseline_train_loss", "baseline_sample", "baseline_influence",
    "baseline_cache_agreement",
})
HIDDEN_MESSAGES = {"passed": "Hidden check passed.", "failed": "Hidden check failed.",
                   "not_applicable": "Hidden check does not apply to how this code is written."}
HIDDEN_NOT_RUN = "Hidden check not run"  # + the reason: an unmet interface item or the candidate's own crash
COMPONENT_TITLES = {"loss": "Loss", "positional": "Positional", "attention": "Attention", "general": "General",
                    "training": "Training run", "generation": "Generation", "data": "Data", "optimizer": "Optimizer",
                    "evaluation": "Evaluation", "checkpoint": "Checkpoints"}
RUN_CHECKS_NOTE = "Submit runs the hidden checks."

# The API's attempt object and its parts are JSON objects (CONTRACTS.md), answered as they are built:
# dictionaries with these keys, typed, rather than objects that would be converted once more.


class ShownTest(TypedDict):
    """A test as a candidate sees it (hidden ones anonymised), and as the Results panel lists it."""

    id: str
    component: str
    passed: bool
    status: str
    reason: str | None
    message: str
    hidden: bool


class StaffTest(TypedDict):
    """A test as interviewers and admins see it: everything the grader reported."""

    id: str
    component: str
    passed: bool
    message: str
    applicable: bool
    public: bool
    status: str
    reason: str | None


class ShownError(TypedDict):
    kind: str
    message: str


class ShownVerdict(TypedDict):
    """What the attempt's own table of checks says, in words (the API's `verdict`, the Results panel's line
    under Passed/Failed, the History row). A Run is judged by the public checks it shows (`checks`
    "public"); a Submit by every check, hidden ones counted by component, never named."""

    status: str  # the same value as the attempt's `status`
    checks: str  # "public" (a Run), "all" (a Submit), "" before a verdict or for scratch runs
    summary: str


class ShownBug(TypedDict):
    id: str
    component: str
    title: str
    fixed: bool
    verifiable: bool
    reason: str | None
    verdict: str  # fixed | not_fixed | cannot_tell | not_verifiable (app/grading/result.py)


class ShownInfluence(TypedDict):
    text: str
    matrix: list[list[float]]


class ShownCacheAgreement(TypedDict):
    prefill: int
    diffs: list[float | None]
    error: str | None


class ShownTraining(TypedDict):
    """A TrainingSummary's JSON (model_dump(mode="json")), its keys in the model's order. The baseline
    fields a candidate sees are CANDIDATE_BASELINE_FIELDS; the NotRequired one is for interviewers and admins."""

    error: str | None
    steps: list[int]
    train_loss: list[float | None]
    val_loss: list[float | None]
    baseline_train_loss: list[float | None]
    baseline_val_loss: list[float | None]
    final_val_loss: float | None
    baseline_final_val_loss: float | None
    final_train_loss: float | None
    init_loss: float | None
    ln_vocab: float | None
    unigram_entropy: float | None
    leak_probe_loss: float | None
    baseline_leak_probe_loss: NotRequired[float | None]
    sample: str | None
    baseline_sample: str | None
    influence: ShownInfluence | None
    baseline_influence: ShownInfluence | None
    cache_agreement: ShownCacheAgreement | None
    baseline_cache_agreement: ShownCacheAgreement | None


class _StaffBaseline(TypedDict, total=False):
    """The baseline fields of ShownTraining that candidates do not see."""

    baseline_leak_probe_loss: float | None


# training_view copies the summary key for key: a field added to TrainingSummary must be placed here too.
if (list(ShownTraining.__annotations__) != list(TrainingSummary.model_fields)
        or set(_StaffBaseline.__annotations__) != {k for k in TrainingSummary.model_fields if k.startswith("baseline_")}
        - CANDIDATE_BASELINE_FIELDS):
    raise RuntimeError("ShownTraining must name TrainingSummary's fields in order, _StaffBaseline the withheld ones")


class ShownSplit(TypedDict):
    micro_batches: int
    norm_ratio: float | None
    diff: float | None


class ShownAccumulation(TypedDict):
    splits: list[ShownSplit]
    error: str | None


class ShownSchedule(TypedDict):
    warmup: int
    max_steps: int
    max_lr: float
    min_lr: float
    lr: list[float | None]
    error: str | None


class ShownResume(TypedDict):
    saved_at: int
    steps: int
    uninterrupted: list[tuple[int, float | None]]
    resumed: list[tuple[int, float | None]]
    error: str | None


class ShownPipeline(TypedDict):
    """A PipelineSummary's JSON (pipeline-v1's three charts), key for key: every part is for everyone, the
    reference's included (it is what the contract asks for, not the fix)."""

    accumulation: ShownAccumulation | None
    baseline_accumulation: ShownAccumulation | None
    schedule: ShownSchedule | None
    baseline_schedule: ShownSchedule | None
    resume: ShownResume | None
    baseline_resume: ShownResume | None


if list(ShownPipeline.__annotations__) != list(PipelineSummary.model_fields):
    raise RuntimeError("ShownPipeline must name PipelineSummary's fields in order")


def pipeline_view(pipeline: PipelineSummary | None) -> ShownPipeline | None:
    if pipeline is None:
        return None
    data = pipeline.model_dump(mode="json")
    return ShownPipeline(accumulation=data["accumulation"], baseline_accumulation=data["baseline_accumulation"],
                         schedule=data["schedule"], baseline_schedule=data["baseline_schedule"],
                         resume=data["resume"], baseline_resume=data["baseline_resume"])


class ShownScratch(TypedDict):
    stdout: str
    stderr: str
    exit_code: int | None
    wall_seconds: float
    truncated: bool


class AttemptBody(TypedDict):
    """GET /api/attempts/{id}; the NotRequired keys are for interviewers and admins only."""

    id: int
    number: int  # its number in its workspace (1, 2, 3 … over every kind), as pages name it: "Run 3"
    scenario: str
    version: int
    kind: str
    status: str
    error: ShownError | None
    tests: list[ShownTest] | list[StaffTest]
    training: ShownTraining | None  # candidates: without the reference-only baseline
    pipeline: ShownPipeline | None  # pipeline-v1: the accumulation, schedule and resume charts' data
    tips: list[ShownTip]
    notes: dict[str, str]
    files: dict[str, str]
    interview: int | None
    progress: dict[str, str | int] | None  # the sandbox's sanitised report: stage, name, k, n
    scratch: ShownScratch | None
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    verdict: ShownVerdict
    points: float | None  # the score in points out of 100 (app/attempts/points.py); null before a graded submit
    bugs_fixed: int | None  # how many planted bugs the submission fixed (a count: never which), null for a Run
    bugs_total: int | None
    bugs: NotRequired[list[ShownBug]]
    score: NotRequired[float | None]
    regressions: NotRequired[list[str]]
    tries: NotRequired[int]
    hints_used: NotRequired[dict[str, int]]


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def candidate_tests(tests: list[TestResult]) -> list[ShownTest]:
    """Tests as a candidate sees them: hidden ones anonymised, only status and component kept. A test
    that was not run keeps its reason (an unmet interface item or the candidate's own crash, never a
    test id), so it reads as not run rather than failed."""
    shown: list[ShownTest] = []
    hidden_count = 0
    for test in tests:
        reason = test.reason if test.status == "not_run" else None
        if test.public:
            shown.append(ShownTest(id=test.id, component=test.component, passed=test.passed, status=test.status,
                                   reason=reason, message=test.message, hidden=False))
            continue
        hidden_count += 1
        message = (f"{HIDDEN_NOT_RUN}: {test.reason}." if test.status == "not_run"
                   else HIDDEN_MESSAGES.get(test.status, HIDDEN_MESSAGES["failed"]))
        shown.append(ShownTest(id=f"hidden-{hidden_count}", component=test.component, passed=test.passed,
                               status=test.status, reason=reason, message=message, hidden=True))
    return shown


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def by_component(tests: list[TestResult]) -> str:
    """ "2 in Attention, 1 in Loss": counts by component in the components' order, never a test's id."""
    counts: dict[str, int] = {}
    for test in tests:
        counts[test.component] = counts.get(test.component, 0) + 1
    return ", ".join(f"{n} in {COMPONENT_TITLES.get(c, c)}" for c, n in counts.items())


def verdict_of(attempt: Attempt, result: GradeResult | None) -> ShownVerdict:
    """The attempt's verdict as its table of checks supports it (see ShownVerdict).

    A Run's stored status counts the hidden checks the Run does not show, so a Run is judged here by its
    public checks alone: passing ones read "public checks pass; Submit runs the hidden checks", never a
    bare Failed above a table of passes. A Submit's failures are counted by component."""
    status = attempt.status
    if status not in ("passed", "failed") or result is None:
        return ShownVerdict(status=status, checks="", summary="")
    if attempt.kind == "run":
        public = [t for t in result.tests if t.public]
        failed = [t for t in public if t.status == "failed"]
        not_run = [t for t in public if t.status == "not_run"]
        if not failed and not not_run:
            return ShownVerdict(status="passed", checks="public",
                                summary=f"Public checks pass ({len(public)} of {len(public)}). {RUN_CHECKS_NOTE}")
        parts = [f"{plural(len(failed), 'public check')} failed ({by_component(failed)})"] if failed else []
        if not_run:
            parts.append(f"{plural(len(not_run), 'public check')} not run ({by_component(not_run)})")
        return ShownVerdict(status="failed", checks="public", summary="; ".join(parts) + ". " + RUN_CHECKS_NOTE)
    if attempt.kind != "submit":
        return ShownVerdict(status=status, checks="", summary="")
    failed = [t for t in result.tests if t.status == "failed"]
    not_run = [t for t in result.tests if t.status == "not_run"]
    if status == "passed":
        return ShownVerdict(status=status, checks="all",
                            summary=f"All {len(result.tests)} checks pass, hidden ones included.")
    parts = [f"{plural(len(failed), 'check')} failed: {by_component(failed)}"] if failed else []
    if not_run:
        parts.append(f"{plural(len(not_run), 'check')} not run: {by_component(not_run)}")
    return ShownVerdict(status=status, checks="all", summary="; ".join(parts) + ".")


def staff_test(test: TestResult) -> StaffTest:
    return StaffTest(id=test.id, component=test.component, passed=test.passed, message=test.message,
                     applicable=test.applicable, public=test.public, status=test.status, reason=test.reason)


def candidate_training(training: TrainingSummary | None) -> ShownTraining | None:
    """The training summary without reference outputs beyond what CANDIDATE_BASELINE_FIELDS allows."""
    return None if training is None else training_view(training, staff=False)


def training_view(training: TrainingSummary, *, staff: bool) -> ShownTraining:
    """The summary's JSON values, key for key; candidates get only the CANDIDATE_BASELINE_FIELDS baselines."""
    data = training.model_dump(mode="json")
    staff_only: _StaffBaseline = {"baseline_leak_probe_loss": data["baseline_leak_probe_loss"]} if staff else {}
    return {
        "error": data["error"], "steps": data["steps"], "train_loss": data["train_loss"], "val_loss": data["val_loss"],
        "baseline_train_loss": data["baseline_train_loss"], "baseline_val_loss": data["baseline_val_loss"],
        "final_val_loss": data["final_val_loss"], "baseline_final_val_loss": data["baseline_final_val_loss"],
        "final_train_loss": data["final_train_loss"], "init_loss": data["init_loss"], "ln_vocab": data["ln_vocab"],
        "unigram_entropy": data["unigram_entropy"], "leak_probe_loss": data["leak_probe_loss"], **staff_only,
        "sample": data["sample"], "baseline_sample": data["baseline_sample"],
        "influence": data["influence"], "baseline_influence": data["baseline_influence"],
        "cache_agreement": data["cache_agreement"], "baseline_cache_agreement": data["baseline_cache_agreement"],
    }


# The version's number and slug only (its package and reference are large JSON); built once, since
# building the statement costs more than running it on the attempt the workspace polls.
_VERSION_AND_SLUG = (
    select(ScenarioVersion.version, Scenario.slug).join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
    .where(ScenarioVersion.id == bindparam("version_id"))
)


def attempt_view(*, session: Session, attempt: Attempt, viewer: User) -> AttemptBody:
    """The API's attempt object for this viewer."""
    version_number, slug = session.execute(_VERSION_AND_SLUG, {"version_id": attempt.scenario_version_id}).one()
    result = GradeResult.from_stored(attempt.result)
    staff = viewer.role in (Role.interviewer.value, Role.admin.value)
    tests = result.tests if result else []
    training = result.training if result else None
    verdict = verdict_of(attempt, result)
    graded_submit = attempt.kind == "submit" and result is not None and verdict["status"] in ("passed", "failed")
    view = AttemptBody(
        id=attempt.id,
        number=numbers.number_of(session=session, attempt=attempt),
        scenario=slug,
        version=version_number,
        kind=attempt.kind,
        status=verdict["status"],
        error=_error_view(GradeError.model_validate(attempt.error) if attempt.error else None),
        tests=[staff_test(t) for t in tests] if staff else candidate_tests(tests),
        training=(training_view(training, staff=True) if training else None) if staff else candidate_training(training),
        pipeline=pipeline_view(result.pipeline if result else None),
        tips=coaching_service.tips_of(session=session, attempt_id=attempt.id),
        notes=attempt.notes,
        files=attempt.files,
        interview=attempt.interview_id,
        progress=attempt.progress,
        scratch=_scratch_view(result.scratch) if result and result.scratch else None,
        created_at=_iso(attempt.created_at),
        started_at=_iso(attempt.started_at),
        finished_at=_iso(attempt.finished_at),
        verdict=verdict,
        points=points(attempt.score) if graded_submit else None,
        bugs_fixed=sum(1 for b in result.bugs if b.fixed) if graded_submit and result else None,
        bugs_total=len(result.bugs) if graded_submit and result else None,
    )
    if staff:
        view["bugs"] = [_bug_view(b) for b in (result.bugs if result else [])]
        view["score"] = attempt.score
        view["regressions"] = result.regressions if result else []
        view["tries"] = attempt.tries
        view["hints_used"] = attempt.hints_used
    return view


def _error_view(error: GradeError | None) -> ShownError | None:
    return ShownError(kind=error.kind, message=error.message) if error else None


def _bug_view(bug: BugResult) -> ShownBug:
    return ShownBug(id=bug.id, component=bug.component, title=bug.title, fixed=bug.fixed,
                    verifiable=bug.verifiable, reason=bug.reason, verdict=bug.verdict)


def _scratch_view(scratch: ScratchOutput) -> ShownScratch:
    return ShownScratch(stdout=scratch.stdout, stderr=scratch.stderr, exit_code=scratch.exit_code,
                        wall_seconds=scratch.wall_seconds, truncated=scratch.truncated)
