"""The integrity signals of one interview, each with its evidence and a note on innocent explanations."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt, AttemptKind
from app.interviews.record import InterviewRecord, offset_from
from app.interviews.signals import similarity, solution_text
from app.interviews.signals.introspection import scan_file
from app.interviews.signals.model import Evidence, Signal, clock
from app.users.models import User
from app.workspace.models import WorkspaceEvent, scope_for

FOCUS_TOTAL_SECONDS = 120  # time away from the page worth a look
FOCUS_COUNT = 5


def _events(session: Session, record: InterviewRecord, kind: str) -> list[WorkspaceEvent]:
    return list(session.scalars(select(WorkspaceEvent).where(
        WorkspaceEvent.scope == scope_for(record.interview.id),
        WorkspaceEvent.scenario_version_id == record.interview.scenario_version_id, WorkspaceEvent.kind == kind,
    ).order_by(WorkspaceEvent.at, WorkspaceEvent.id)))


def paste_signal(session: Session, record: InterviewRecord) -> Signal:
    start = record.interview.started_at
    events = _events(session, record, "paste")
    chars = [int(e.detail.get("chars", 0)) for e in events]
    evidence = [Evidence(text=f"pasted {n:,} characters ({int(e.detail.get('lines', 0))} lines) into "
                              f"{e.detail.get('file', '?')}", at=offset_from(start, e.at),
                         file=str(e.detail.get("file", "")) or None) for e, n in zip(events, chars, strict=True)]
    total = sum(chars)
    summary = f"{len(evidence)} large paste(s), {total:,} characters in all" if evidence else "No large pastes."
    return Signal(kind="large_paste", title="Large pastes", raised=bool(evidence), summary=summary, evidence=evidence,
                  note="Candidates also paste their own code from the scratch file or between files.")


def focus_signal(session: Session, record: InterviewRecord) -> Signal:
    start = record.interview.started_at
    events = _events(session, record, "focus_lost")
    seconds = [float(e.detail.get("seconds", 0)) for e in events]
    evidence = [Evidence(text=f"away for {s:.0f} s", at=offset_from(start, e.at)) for e, s in zip(events, seconds,
                                                                                                   strict=True)]
    total = sum(seconds)
    raised = total >= FOCUS_TOTAL_SECONDS or len(events) >= FOCUS_COUNT
    summary = (f"Left the page {len(events)} time(s), {total:.0f} s in all, longest {max(seconds):.0f} s"
               if events else "Never left the page.")
    return Signal(kind="focus_lost", title="Focus lost", raised=raised, summary=summary, evidence=evidence,
                  note="Reading documentation in another tab is allowed unless you said otherwise.")


def timing_signal(record: InterviewRecord) -> Signal:
    first: dict[str, Evidence] = {}
    for entry in record.attempts:
        kind = entry.attempt.kind
        if kind not in first:
            first[kind] = Evidence(text=f"first {kind} (attempt {entry.number})", at=entry.offset)
    solved = next((e for e in record.columns if e.result and e.result.bugs and all(b.fixed for b in e.result.bugs)),
                  None)
    evidence = [first[k] for k in (AttemptKind.scratch.value, AttemptKind.run.value, AttemptKind.submit.value)
                if k in first]
    if solved is not None:
        evidence.append(Evidence(text=f"every planted bug fixed (attempt {solved.number})", at=solved.offset))
    graded = [e for e in evidence if not e.text.startswith("first scratch")]
    summary = (f"First graded attempt at {clock(graded[0].at)}" if graded else "No run or submission yet.")
    if solved is not None:
        summary += f"; every bug fixed at {clock(solved.offset)}"
    # Speed is a fact, never a flag: a strong candidate is fast, and being fast is no evidence of anything.
    return Signal(kind="time_to_first_run", title="Time to first run", raised=False, fact=True, summary=summary,
                  evidence=evidence, note="How fast the candidate worked, shown as it happened.")


def solution_text_signal(session: Session, record: InterviewRecord, latest: Attempt | None) -> Signal:
    """Raised only on text an honest fix cannot produce (app/interviews/signals/solution_text.py)."""
    tells = solution_text.solution_tells(record.package)
    start = record.interview.started_at
    evidence: list[Evidence] = []
    for event in _events(session, record, "paste"):
        file = str(event.detail.get("file", ""))
        found = solution_text.tells_in_paste(tells, file, str(event.detail.get("pieces", "")).split())
        if solution_text.paste_is_telling(found):
            kinds = ", ".join(f"{sum(t.kind == k for t in found)} {k}(s)" for k in ("comment", "line", "name")
                              if any(t.kind == k for t in found))
            sample = next((t for t in found if t.kind == "comment"), found[0])
            evidence.append(Evidence(text=f"a paste into {file} carried text only the solution has: {kinds}",
                                     at=offset_from(start, event.at), file=file, code=sample.text[:160]))
    comments = solution_text.comments_in_files(tells, {k: str(v) for k, v in latest.files.items()}) if latest else []
    if len(comments) >= solution_text.SUBMISSION_COMMENTS:
        evidence += [Evidence(text="the submission holds a comment only the solution has", file=t.file,
                              code="# " + t.text[:160]) for t in comments[:10]]
    summary = (f"{len(evidence)} piece(s) of evidence" if evidence
               else "Nothing in the pastes or the code that only the solution has.")
    return Signal(kind="solution_only_text", title="Text only the solution has", raised=bool(evidence),
                  summary=summary, evidence=evidence,
                  note="A fix typed by hand matches the solution's code but not its comments or its wording; "
                       "closeness to the solution alone is never a signal.")


def introspection_signal(record: InterviewRecord) -> Signal:
    evidence: list[Evidence] = []
    seen: set[tuple[str, str, str]] = set()
    for entry in record.attempts:
        if entry.attempt.kind == AttemptKind.scratch.value:
            continue  # the scratch script is an experiment; it never runs next to the grader
        for name in record.package.files:
            for finding in scan_file(name, str(entry.attempt.files.get(name, ""))):
                key = (finding.kind, finding.file, finding.code)
                if key not in seen:
                    seen.add(key)
                    evidence.append(Evidence(text=f"{finding.title} (first in attempt {entry.number})",
                                             at=entry.offset, file=finding.file, line=finding.line, code=finding.code))
    summary = f"{len(evidence)} place(s) in the submitted files" if evidence else "Nothing found in the files."
    return Signal(kind="grader_introspection", title="Code that introspects or patches the grader",
                  raised=bool(evidence), summary=summary, evidence=evidence,
                  note="Fixing the model never needs these; read the lines before concluding anything.")


def signals_for(*, session: Session, record: InterviewRecord, viewer: User | None = None) -> list[Signal]:
    """Every signal of the interview, raised or not, in a fixed order. `viewer` is who reads them: the
    comparison with other candidates reads only submissions of interviews they may read (none when no
    viewer is given)."""
    latest = _latest_code(record)
    return [
        paste_signal(session, record),
        focus_signal(session, record),
        timing_signal(record),
        solution_text_signal(session, record, latest),
        similarity.candidates_signal(session, record, latest, viewer),
        introspection_signal(record),
    ]


def _latest_code(record: InterviewRecord) -> Attempt | None:
    """The code the similarity checks read: the last submission, else the last graded attempt."""
    submit = [e.attempt for e in record.attempts if e.attempt.kind == AttemptKind.submit.value]
    graded = [e.attempt for e in record.columns]
    chosen = submit or graded
    return chosen[-1] if chosen else None
