"""The grading job: grade one attempt, safely, whatever process runs it.

`grade_attempt(attempt_id)` is what the local pool threads and the Celery task both call (the job
kind registered in app/attempts/job_kinds.py). It claims
the row (so a finished or already-running attempt is never graded twice), keeps a heartbeat while the
sandbox runs, and stores the outcome only while it still holds the claim.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import InterfaceError, OperationalError

from app.attempts import claims, slots
from app.attempts.dispatch_models import AttemptDispatch
from app.attempts.grading import GradeOutcome, grade, internal_error
from app.attempts.models import Attempt
from app.core import logs
from app.core.db import new_session
from app.core.settings import get_settings
from app.dispatch.claiming import new_claim_token
from app.dispatch.heartbeat import heartbeat
from app.engine.package import ScenarioPackage
from app.grading.result import GradeError
from app.ops import metrics
from app.sandbox.progress import Progress
from app.scenarios.models import ScenarioVersion

log = logging.getLogger(__name__)

# The real grader is grading.grade (within the time limit below); tests pass stand-ins.
Grader = Callable[..., GradeOutcome]
TIMEOUT_ERROR = GradeError(kind="timeout", message="Grading took longer than the worker's time limit.")


def grade_within_time_limit(**kwargs: Any) -> GradeOutcome:
    """The real grader; hitting a Celery task's soft time limit ends the attempt as a timeout.

    Only a Celery worker raises the exception; the local pool has no time limit of its own (the
    sandbox's limits apply in both).
    """
    from celery.exceptions import SoftTimeLimitExceeded

    try:
        return grade(**kwargs)
    except SoftTimeLimitExceeded:
        return GradeOutcome(status="error", result=None, error=TIMEOUT_ERROR, score=None)


def grade_attempt(attempt_id: int, *, worker_prefix: str = "worker", grader: Grader | None = None) -> str:
    """Claim, grade and store one attempt; returns what happened (graded, waiting, deferred, skipped, lost).

    Logs of the grading carry the request id of the submission that queued it.
    """
    with logs.request_context(None):
        return _grade_attempt(attempt_id, worker_prefix=worker_prefix, grader=grader)


def _grade_attempt(attempt_id: int, *, worker_prefix: str, grader: Grader | None) -> str:
    from app.scenarios.reference_wait import waits_for_reference

    if waits_for_reference(attempt_id):  # dispatched again once its version's reference is stored
        log.info("attempt %s: waits in the queue for its version's reference run", attempt_id)
        return "waiting"
    settings = get_settings()
    token = new_claim_token(worker_prefix)
    with new_session() as session:
        claim = claims.claim(
            session=session,
            attempt_id=attempt_id,
            token=token,
            stale_after_seconds=settings.stale_after_seconds,
            max_tries=settings.max_tries,
        )
        if claim is None:
            if claims.waits_for_own_grading(session=session, attempt_id=attempt_id,
                                            stale_after_seconds=settings.stale_after_seconds):
                # Stays queued; the end of the user's grading dispatches it again (slots.release_next).
                log.info("attempt %s: waits for its user's grading in progress (one slot per user)", attempt_id)
                return "deferred"
            log.info("attempt %s: not claimable (finished, held by a live worker, or gave up)", attempt_id)
            return "skipped"
        dispatch = session.get(AttemptDispatch, attempt_id)
        logs.request_id_var.set(dispatch.request_id if dispatch else None)
        attempt = session.get(Attempt, attempt_id)
        assert attempt is not None
        version = session.get(ScenarioVersion, attempt.scenario_version_id)
        assert version is not None
        content, files, kind, hints = version.content, dict(attempt.files), attempt.kind, dict(attempt.hints_used)
        reference, version_id, user_id = version.reference, version.id, attempt.user_id
        session.rollback()  # release the read snapshot before the long grading

    try:
        stored = _grade_and_store(claim, content=content, files=files, kind=kind, hints=hints, reference=reference,
                                  version_id=version_id, grader=grader, token=token)
    finally:
        # The user's grading slot is free (or the attempt goes back to the sweepers): their next queued
        # attempt, refused by its claim meanwhile, is dispatched again.
        slots.release_next(user_id)
    if stored is None:
        log.warning("attempt %s: claim lost to another worker; result discarded", attempt_id)
        return "lost"
    write_coaching(attempt_id)
    if stored.result is not None and stored.result.provisional:
        _regrade_if_matrix_stored(version_id)
    log.info("attempt %s: %s", attempt_id, stored.status)
    return "graded"


def _grade_and_store(claim: claims.Claim, *, content: dict[str, object], files: dict[str, str], kind: str,
                     hints: dict[str, int], reference: Any, version_id: int, grader: Grader | None,
                     token: str) -> GradeOutcome | None:
    """Grade under a heartbeat and store the outcome; the outcome stored, or None when the claim was lost."""
    attempt_id = claim.attempt_id
    settings = get_settings()
    log.info("attempt %s: grading (try %s, %s)", attempt_id, claim.tries, token)
    clock = metrics.StageClock(ProgressWriter(claim))
    with heartbeat(lambda session: claims.beat(session=session, claim=claim), settings.heartbeat_seconds,
                   f"heartbeat-{attempt_id}"):
        try:
            package = ScenarioPackage.from_dict(content)
            outcome = (grader or grade_within_time_limit)(package=package, files=files, kind=kind, hints_used=hints,
                                                          version_id=version_id, reference=reference,
                                                          on_progress=clock)
        except Exception:
            log.exception("attempt %s: the grader failed", attempt_id)
            outcome = internal_error("The grader failed unexpectedly; the attempt was not graded.")
        finally:
            clock.close()
    metrics.observe_outcome(outcome.status, outcome.error)

    stored = _store(claim, outcome, patience_seconds=settings.stale_after_seconds / 2)
    return outcome if stored else None


def _regrade_if_matrix_stored(version_id: int) -> None:
    """A grading against the solution's measurements alone that ended after the version's matrix was
    stored missed the rejudge queued then: queue one (app.scenarios.rejudge.regrade_provisional)."""
    from app.scenarios import rejudge
    from app.scenarios.reference import stored_report_is_complete

    try:
        with new_session() as session:
            version = session.get(ScenarioVersion, version_id)
            if version is not None and stored_report_is_complete(version.reference, version.content_hash):
                rejudge.regrade_provisional(session=session, version_id=version_id)
                session.commit()
    except Exception:  # the verdict is stored; its bug verdicts wait for the next validation instead
        log.exception("version %s: could not queue the regrading of provisional attempts", version_id)


def _store(claim: claims.Claim, outcome: GradeOutcome, *, patience_seconds: float) -> bool:
    """Write the outcome; while the database is briefly unreachable (a restart), keep trying.

    Past the patience the error is raised: the heartbeat has stopped, so the attempt goes back to
    the queue and is graded again rather than lost.
    """
    deadline = time.monotonic() + patience_seconds
    delay = 0.5
    while True:
        try:
            with new_session() as session:
                return claims.finish(session=session, claim=claim, status=outcome.status, result=outcome.result,
                                     error=outcome.error, score=outcome.score)
        except (OperationalError, InterfaceError) as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.warning("attempt %s: database unavailable while storing the result (%s); retrying",
                        claim.attempt_id, exc.__class__.__name__)
            time.sleep(delay)
            delay = min(delay * 2, 5.0)


class ProgressWriter:
    """Stores progress reports on the attempt row: a new stage at once, the same stage at most every
    MIN_INTERVAL seconds, so a chatty harness costs a few small UPDATEs a second at most."""

    MIN_INTERVAL = 0.5

    def __init__(self, claim: claims.Claim) -> None:
        self.claim = claim
        self._last_stage: str | None = None
        self._last_at = 0.0

    def __call__(self, progress: Progress) -> None:
        now = time.monotonic()
        stage = progress.stage
        if stage == self._last_stage and now - self._last_at < self.MIN_INTERVAL:
            return
        self._last_stage, self._last_at = stage, now
        try:
            with new_session() as session:
                claims.report_progress(session=session, claim=self.claim, progress=progress.to_json())
        except Exception:  # progress is display only; a database hiccup must not stop the grading
            log.warning("attempt %s: could not store progress", self.claim.attempt_id, exc_info=True)


def write_coaching(attempt_id: int) -> None:
    """Write the coaching tips for the stored result (after a grading or a rejudge that changed it);
    a coaching failure never undoes the grading.

    The tips are written between a read and a short write transaction: a configured coaching model
    may take seconds, and no lock may be held meanwhile.
    """
    from app.coaching import service as coaching_service

    try:
        with new_session() as session:
            data = coaching_service.gather(session=session, attempt_id=attempt_id)
            session.rollback()
        if data is None:
            return
        tips = coaching_service.write_tips(data)
        with new_session() as session:
            claims.lock_for_write(session=session, attempt_id=attempt_id)
            coaching_service.store_tips(session=session, attempt_id=attempt_id, tips=tips)
            session.commit()
    except Exception:
        log.exception("attempt %s: coaching failed (grading result kept)", attempt_id)
