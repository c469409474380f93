"""An attempt's verdict as interviewers read it: the candidate's verdict (verdict_of), plus what a Run ran
but did not show.

A Run's stored status counts hidden checks the candidate never sees, so a Run whose public checks all pass
may be stored "failed". Interviewers read the same verdict the candidate read ("public checks pass"), and,
beside it, how many hidden checks failed in which component: more than the candidate saw, never the
opposite of the table above or below it.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.attempts.models import Attempt
from app.attempts.views import COMPONENT_TITLES, by_component, plural, verdict_of
from app.grading.result import GradeResult

# The word for a verdict status, as the review's summaries, timeline and live list print it.
STATUS_WORDS = {"queued": "queued", "running": "running", "passed": "passed", "failed": "failed",
                "error": "error", "cancelled": "cancelled"}


@dataclass(frozen=True)
class StaffVerdict:
    status: str  # the status shown (a Run's is its public checks', as on the candidate's page): the CSS class too
    label: str  # "passed", "failed", "public checks pass", "public checks fail", "error", "queued" …
    summary: str  # the sentence the candidate read under the verdict ("" before one)
    hidden: str = ""  # a Run's hidden checks: "2 hidden checks failed (2 in Attention)"; "" for anything else

    @property
    def text(self) -> str:
        """The label with the hidden checks' note: one line for the timeline, the live list, playback."""
        return f"{self.label}; {self.hidden}" if self.hidden else self.label


def staff_verdict(attempt: Attempt, result: GradeResult | None) -> StaffVerdict:
    shown = verdict_of(attempt, result)
    status = shown["status"]
    if shown["checks"] != "public" or result is None:
        return StaffVerdict(status=status, label=STATUS_WORDS.get(status, status), summary=shown["summary"])
    label = "public checks pass" if status == "passed" else "public checks fail"
    return StaffVerdict(status=status, label=label, summary=shown["summary"],
                        hidden=hidden_note(stored_status=attempt.status, result=result))


def hidden_note(*, stored_status: str, result: GradeResult) -> str:
    """What a Run's hidden checks found. The grader keeps only a Run's public tests in its result, but judges
    its status and its planted bugs on every check: so the stored status tells whether hidden checks failed,
    and the per-bug verdicts where (by component, as the timeline shows them). A result that still lists hidden
    tests (graded before Runs dropped them) counts them by component."""
    hidden = [t for t in result.tests if not t.public]
    if hidden:
        failed = [t for t in hidden if t.status == "failed"]
        not_run = [t for t in hidden if t.status == "not_run"]
        parts = [f"{plural(len(failed), 'hidden check')} failed ({by_component(failed)})"] if failed else []
        if not_run:
            parts.append(f"{plural(len(not_run), 'hidden check')} not run ({by_component(not_run)})")
        return "; ".join(parts) or f"hidden checks pass too ({len(hidden)} of {len(hidden)})"
    public_pass = all(t.status in ("passed", "not_applicable") for t in result.tests)
    if stored_status == "passed":
        return "hidden checks pass too"
    bugs = [b for b in result.bugs if b.verdict == "not_fixed"]
    where = ", ".join(sorted({COMPONENT_TITLES.get(b.component, b.component) for b in bugs}))
    open_bugs = f"{plural(len(bugs), 'planted bug')} not fixed ({where})" if bugs else ""
    if public_pass:
        return "hidden checks fail" + (f": {open_bugs}" if open_bugs else "")
    return open_bugs
