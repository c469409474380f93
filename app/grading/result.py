"""The grading result contract: what a grading produces, what an attempt stores, what pages and the API read.

One typed shape from the grader to the views, so no reader guesses at dictionary keys. Stored rows
are read back with `GradeResult.from_stored`, which tolerates fields that older gradings did not write.
Non-finite losses (a diverging run) are kept as the strings "NaN"/"Infinity" in JSON, which both
SQLite and PostgreSQL JSON columns accept.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Status = Literal["passed", "failed", "error"]
# A test's verdict: only "failed" is evidence of a bug and only "passed" of its absence. "not_applicable":
# the test cannot apply to how the code is written; "not_run": something it relies on is missing (an
# unmet interface item, a crashed training run), said in `reason` (the verdicts of app/engine/interfaces.py).
TestStatus = Literal["passed", "failed", "not_applicable", "not_run", ""]
COMPONENTS = ("loss", "positional", "attention", "general", "training", "generation", "data", "optimizer", "evaluation",
              "checkpoint")

# The harness ends error messages with the deepest candidate frame: "NameError: x (model.py:42)".
_LOCATION = re.compile(r"\((?P<file>[\w.-]+\.py):(?P<line>\d+)\)\s*$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", ser_json_inf_nan="strings")


class GradeError(_Model):
    """Why a run produced no measurements (limits, crash, syntax, import, sandbox)."""

    kind: str
    message: str

    @property
    def location(self) -> tuple[str, int] | None:
        """(file, line) of a syntax or import error inside the candidate's files, when known."""
        match = _LOCATION.search(self.message)
        return (match["file"], int(match["line"])) if match else None


class TestResult(_Model):
    """One hidden or public test's verdict (hidden ones are anonymised before candidates see them)."""

    __test__ = False  # not a pytest class

    id: str
    component: str
    passed: bool
    message: str = ""
    applicable: bool = True
    public: bool = False
    status: TestStatus = ""
    reason: str | None = None

    @model_validator(mode="after")
    def _derive_status(self) -> TestResult:
        """Results stored before statuses existed derive theirs from passed and applicable."""
        if not self.status:
            self.status = ("passed" if self.passed else "failed") if self.applicable else "not_applicable"
        return self


# A planted bug's verdict: "fixed" (scored), "not_fixed", "cannot_tell" (its tests ran, but another bug
# that may still be there fails or hides the same tests, so neither verdict is sound yet; never scored)
# and "not_verifiable" (the tests that would tell did not run or do not apply).
BugVerdict = Literal["fixed", "not_fixed", "cannot_tell", "not_verifiable", ""]
BUG_VERDICT_LABELS = {"fixed": "fixed", "not_fixed": "not fixed", "cannot_tell": "cannot tell yet",
                      "not_verifiable": "not verifiable"}


class BugResult(_Model):
    """Whether a planted bug is fixed (interviewers and admins only)."""

    id: str
    component: str
    title: str = ""
    fixed: bool = False
    verifiable: bool = True
    reason: str | None = None  # why a bug could not be judged (not verifiable, or cannot tell yet)
    verdict: BugVerdict = ""

    @model_validator(mode="after")
    def _derive_verdict(self) -> BugResult:
        """Results stored before verdicts existed derive theirs from fixed and verifiable."""
        if not self.verdict:
            self.verdict = "fixed" if self.fixed else "not_fixed" if self.verifiable else "not_verifiable"
        return self

    @property
    def label(self) -> str:
        return BUG_VERDICT_LABELS.get(self.verdict, self.verdict)


class InfluenceMap(_Model):
    """|change of the logits at t| when token s changes, over a short window of validation text."""

    text: str
    matrix: list[list[float]]


class CacheAgreement(_Model):
    """max |logits through the KV cache - the full forward's logits| at each position of a validation
    window, on the trained model (llama-v1): the first `prefill` positions go in at once, then one token
    at a time. A correct cache agrees up to float32 rounding; `error` when the cached forward raised."""

    prefill: int = 0
    diffs: list[float | None] = Field(default_factory=list)
    error: str | None = None


class TrainingSummary(_Model):
    """The tiny training run next to the known-good baseline; `error` when it did not complete."""

    error: str | None = None
    steps: list[int] = Field(default_factory=list)
    train_loss: list[float | None] = Field(default_factory=list)
    val_loss: list[float | None] = Field(default_factory=list)
    baseline_train_loss: list[float | None] = Field(default_factory=list)
    baseline_val_loss: list[float | None] = Field(default_factory=list)
    final_val_loss: float | None = None
    baseline_final_val_loss: float | None = None
    final_train_loss: float | None = None
    init_loss: float | None = None
    ln_vocab: float | None = None
    unigram_entropy: float | None = None
    leak_probe_loss: float | None = None
    baseline_leak_probe_loss: float | None = None
    sample: str | None = None
    baseline_sample: str | None = None
    influence: InfluenceMap | None = None
    baseline_influence: InfluenceMap | None = None
    # Interfaces with a KV cache only (llama-v1); None for gpt-v1 and for results stored before it.
    cache_agreement: CacheAgreement | None = None
    baseline_cache_agreement: CacheAgreement | None = None


# pipeline-v1 (the training pipeline): what three charts of the Results panel draw, the candidate's and the
# reference's (the solution's). None for the other interfaces and for results stored before them.
class AccumulationSplit(_Model):
    """The same documents as one batch split into `micro_batches`: the norm of the gradient handed to the
    optimizer over the one-batch reference gradient's, and their relative difference (1 and 0 when right)."""

    micro_batches: int
    norm_ratio: float | None = None
    diff: float | None = None


class AccumulationCheck(_Model):
    splits: list[AccumulationSplit] = Field(default_factory=list)
    error: str | None = None  # train_step raised: nothing was compared


class LrSchedule(_Model):
    """get_lr over one schedule, steps 0 .. max_steps + 5; `error` when it raised."""

    warmup: int = 0
    max_steps: int = 0
    max_lr: float = 0.0
    min_lr: float = 0.0
    lr: list[float | None] = Field(default_factory=list)
    error: str | None = None


class ResumeCurves(_Model):
    """The loss train_step returned at each step ([step, loss]) of a run never stopped and of one saved after
    `saved_at` steps, loaded into fresh objects and continued (its steps before the save come first)."""

    saved_at: int = 0
    steps: int = 0
    uninterrupted: list[tuple[int, float | None]] = Field(default_factory=list)
    resumed: list[tuple[int, float | None]] = Field(default_factory=list)
    error: str | None = None


class PipelineSummary(_Model):
    """The Accumulation check, the LR schedule and the Resume check of a pipeline-v1 grading."""

    accumulation: AccumulationCheck | None = None
    baseline_accumulation: AccumulationCheck | None = None
    schedule: LrSchedule | None = None
    baseline_schedule: LrSchedule | None = None
    resume: ResumeCurves | None = None
    baseline_resume: ResumeCurves | None = None


class ScratchOutput(_Model):
    """What the candidate's scratch.py printed; never graded."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    wall_seconds: float = 0.0
    truncated: bool = False


class GradeResult(_Model):
    """The attempt-shaped result of one grading (CONTRACTS.md), with the interviewer's fields."""

    status: Status
    error: GradeError | None = None
    tests: list[TestResult] = Field(default_factory=list)
    training: TrainingSummary | None = None
    bugs: list[BugResult] = Field(default_factory=list)
    score: float = 0.0
    regressions: list[str] = Field(default_factory=list)
    scenario: str = ""
    version: str = ""
    kind: str = "submit"
    wall_seconds: float = 0.0
    scratch: ScratchOutput | None = None
    # pipeline-v1 only: the accumulation, schedule and resume charts' data (None elsewhere and before them).
    pipeline: PipelineSummary | None = None
    # Graded against the solution's measurements before the version's bug x test matrix existed:
    # bugs and score are re-graded once the matrix is stored.
    provisional: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON for the attempt row and `dojo grade --json`."""
        return self.model_dump(mode="json")

    @classmethod
    def from_stored(cls, data: dict[str, Any] | None) -> GradeResult | None:
        """The result stored on an attempt row, or None when it has none yet."""
        return None if not data else cls.model_validate(data)

    def failing(self) -> list[TestResult]:
        """Applicable tests that failed."""
        return [t for t in self.tests if t.status == "failed"]
