"""Fair grading slots: one user holds one slot while others wait, interview gradings on the clock first.

The queue's rule on its own, the claim's rule on both databases (two workers racing for two attempts of
one user on PostgreSQL), and a real local pool running the real grading job (claims, heartbeats, the
release of the user's next attempt) with a stand-in grader that holds one user's gradings as long as the
test says. The Celery path with a real Redis and real workers is in test_fair_slots_celery.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta

import pytest
from sqlalchemy import Engine, delete, select, update
from sqlalchemy.orm import Session

from app.attempts import claims, slots
from app.attempts.grading import GradeOutcome
from app.attempts.grading_job import grade_attempt
from app.attempts.models import Attempt
from app.core.db import new_session, utcnow
from app.core.security import new_token, token_digest
from app.dispatch import dispatcher as dispatcher_module
from app.dispatch.local_pool import LocalPool, WorkItem, WorkQueue
from app.dispatch.registry import Job, Priority
from app.grading.result import GradeResult
from app.interviews.models import Interview
from app.scenarios.service import get_published, sync_builtin_scenarios
from app.users.models import User

from .factories import make_attempt, make_user

STALE = 60.0
FINISHED = ("passed", "failed", "error")


def _item(n: int, owner: str | None, priority: Priority = Priority.FIRST) -> WorkItem:
    return WorkItem(priority, n, f"job:{n}", owner, lambda: None)


def test_the_queue_gives_no_owner_a_second_slot_while_others_wait_and_clock_work_goes_first() -> None:
    queue = WorkQueue()
    for item in (_item(1, "user:a"), _item(2, "user:a"), _item(3, "user:b"), _item(4, None),
                 _item(5, "user:c", Priority.ON_THE_CLOCK)):  # fmt: skip
        queue.put(item)
    taken = [queue.take(background=True, timeout=0.1) for _ in range(4)]
    # The clock first, then first come; user a's second job is passed over while their first runs.
    assert [item.sequence if item else None for item in taken] == [5, 1, 3, 4]
    assert queue.take(background=True, timeout=0.05) is None  # only user a's second job is left: it waits
    first = taken[1]
    assert first is not None
    queue.done(first)
    second = queue.take(background=True, timeout=0.1)
    assert second is not None and second.sequence == 2


def test_a_waiting_thread_takes_the_owners_next_job_as_soon_as_the_first_is_done() -> None:
    queue = WorkQueue()
    queue.put(_item(1, "user:a"))
    queue.put(_item(2, "user:a"))
    first = queue.take(background=True, timeout=0.1)
    assert first is not None
    got: list[WorkItem | None] = []
    waiter = threading.Thread(target=lambda: got.append(queue.take(background=True, timeout=10)))
    waiter.start()
    time.sleep(0.2)
    assert not got  # still waiting: the owner's first job runs
    queue.done(first)
    waiter.join(timeout=5)
    assert got and got[0] is not None and got[0].sequence == 2


def _claim(db: Session, attempt_id: int, token: str) -> claims.Claim | None:
    return claims.claim(session=db, attempt_id=attempt_id, token=token, stale_after_seconds=STALE, max_tries=2)


def test_the_claim_keeps_a_user_to_one_grading_and_lets_others_in(db: Session) -> None:
    user = make_user(session=db)
    first, second = make_attempt(session=db, user_id=user), make_attempt(session=db, user_id=user, kind="run")
    other = make_attempt(session=db)
    db.commit()
    held = _claim(db, first.id, "w:1")
    assert held is not None
    assert _claim(db, second.id, "w:2") is None
    assert claims.waits_for_own_grading(session=db, attempt_id=second.id, stale_after_seconds=STALE)
    assert db.scalar(select(Attempt.status).where(Attempt.id == second.id)) == "queued"
    assert _claim(db, other.id, "w:3") is not None  # another user's attempt is not held up
    assert claims.next_queued_of_user(session=db, user_id=user) == second.id

    assert claims.finish(session=db, claim=held, status="passed", result=GradeResult(status="passed"), error=None,
                         score=1.0)  # fmt: skip
    assert not claims.waits_for_own_grading(session=db, attempt_id=second.id, stale_after_seconds=STALE)
    assert _claim(db, second.id, "w:2") is not None


def test_a_grading_whose_worker_stopped_beating_holds_no_slot(db: Session) -> None:
    user = make_user(session=db)
    make_attempt(session=db, user_id=user, status="running", worker_id="w:dead", tries=1,
                 heartbeat_at=utcnow() - timedelta(seconds=600))  # fmt: skip
    waiting = make_attempt(session=db, user_id=user, kind="run")
    db.commit()
    assert _claim(db, waiting.id, "w:1") is not None


def _race(engine: Engine, barrier: threading.Barrier, attempt_id: int, token: str, won: list[int]) -> None:
    with Session(engine) as session:
        barrier.wait(timeout=10)
        if _claim(session, attempt_id, token) is not None:
            won.append(attempt_id)


@pytest.mark.postgres
def test_two_workers_racing_for_two_attempts_of_one_user_never_both_win(postgres_engine: Engine) -> None:
    """Without the user's row lock both UPDATEs see no other grading (READ COMMITTED) and both win."""
    with Session(postgres_engine) as setup:
        sync_builtin_scenarios(session=setup)
        user = make_user(session=setup)
        setup.commit()
    rounds, wins = 8, []
    try:
        for _ in range(rounds):
            with Session(postgres_engine) as setup:
                ids = [make_attempt(session=setup, user_id=user, kind=kind).id for kind in ("run", "submit")]
                setup.commit()
            barrier = threading.Barrier(2)
            won: list[int] = []
            threads = [threading.Thread(target=_race, args=(postgres_engine, barrier, attempt_id, f"w:{n}", won))
                       for n, attempt_id in enumerate(ids)]  # fmt: skip
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=30)
            wins.append(len(won))
            with Session(postgres_engine) as close:  # the round's gradings end before the next round
                close.execute(update(Attempt).where(Attempt.id.in_(ids)).values(status="passed"))
                close.commit()
        assert wins == [1] * rounds
    finally:
        with Session(postgres_engine) as cleanup:
            cleanup.execute(delete(Attempt).where(Attempt.user_id == user))
            cleanup.execute(delete(User).where(User.id == user))
            cleanup.commit()


class HoldingGrader:
    """A stand-in for the sandboxed grader: holds the gradings of the held users until released, grades
    everyone else's at once, and records when each grading ran."""

    def __init__(self, held_files: str) -> None:
        self.held_files = held_files
        self.release = threading.Event()
        self.ran: dict[str, tuple[float, float]] = {}  # model.py -> (start, end)
        self.lock = threading.Lock()

    def __call__(self, *, files: dict[str, str], **_kwargs: object) -> GradeOutcome:
        start = time.monotonic()
        if files["model.py"].startswith(self.held_files):
            self.release.wait(timeout=60)
        with self.lock:
            self.ran[files["model.py"]] = (start, time.monotonic())
        return GradeOutcome(status="passed", result=GradeResult(status="passed"), error=None, score=1.0)


def _status(attempt_id: int) -> str:
    with new_session() as session:
        return str(session.scalar(select(Attempt.status).where(Attempt.id == attempt_id)))


def _wait(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _committed(**kwargs: object) -> int:
    with new_session() as session:
        attempt = make_attempt(session=session, **kwargs)  # type: ignore[arg-type]
        session.commit()
        return attempt.id


def _new_user() -> int:
    with new_session() as session:
        user = make_user(session=session)
        session.commit()
        return user


def _pool(grader: HoldingGrader, mine: set[int], monkeypatch: pytest.MonkeyPatch, concurrency: int) -> LocalPool:
    """A real local pool running the real grading job on this test's attempts (recovery at start may
    find other tests' queued attempts in the shared database: they are left alone)."""

    def job(job: Job) -> object:
        return grade_attempt(job.id, worker_prefix="local", grader=grader) if job.id in mine else None

    pool = LocalPool(concurrency=concurrency, job=job, warm=False)
    monkeypatch.setattr(dispatcher_module, "_active", pool)  # the release of a user's next attempt reaches it
    return pool


def test_on_two_slots_one_users_two_long_gradings_leave_a_slot_for_another_user(
    app_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    holder, other = _new_user(), _new_user()
    grader = HoldingGrader(held_files="# held")
    first = _committed(user_id=holder, kind="run", files={"model.py": "# held 1\n"})
    second = _committed(user_id=holder, kind="submit", files={"model.py": "# held 2\n"})
    scratch = _committed(user_id=other, kind="scratch", files={"model.py": "# quick\n"})
    pool = _pool(grader, {first, second, scratch}, monkeypatch, concurrency=2)
    pool.start()
    try:
        for attempt_id in (first, second, scratch):  # in this order: the holder's two come first
            pool.enqueue(Job("attempt", attempt_id))
        _wait(lambda: _status(scratch) == "passed", "the other user's scratch run")
        # The holder's first grading still runs, their second has not started: one slot each.
        assert (_status(first), _status(second)) == ("running", "queued")
        grader.release.set()
        _wait(lambda: _status(second) == "passed", "the holder's second grading")
    finally:
        grader.release.set()
        pool.stop()
    first_run, second_run = grader.ran["# held 1\n"], grader.ran["# held 2\n"]
    assert second_run[0] >= first_run[1]  # one after the other


def test_an_interview_grading_on_the_clock_goes_before_practice_queued_earlier(
    app_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with new_session() as session:
        version = get_published(session=session, slug="warm-up")
        assert version is not None
        interviewer, candidate = make_user(session=session, role="interviewer"), make_user(session=session)
        interview = Interview(interviewer_id=interviewer, candidate_id=candidate, candidate_email="c@example.com",
                              scenario_version_id=version.id, invite_token_hash=token_digest(new_token()),
                              invite_expires_at=utcnow(), invite_used_at=utcnow(), started_at=utcnow())
        session.add(interview)
        session.commit()
        interview_id = interview.id
    grader = HoldingGrader(held_files="# held")
    blocker = _committed(kind="run", files={"model.py": "# held\n"})
    practice = _committed(kind="run", files={"model.py": "# practice\n"})
    on_clock = _committed(user_id=candidate, interview_id=interview_id, files={"model.py": "# interview\n"})
    assert slots.place(on_clock).priority == Priority.ON_THE_CLOCK
    assert slots.place(practice).priority == Priority.FIRST
    pool = _pool(grader, {blocker, practice, on_clock}, monkeypatch, concurrency=1)
    pool.start()
    try:
        pool.enqueue(Job("attempt", blocker))
        _wait(lambda: _status(blocker) == "running", "the blocker to hold the only slot")
        pool.enqueue(Job("attempt", practice))
        pool.enqueue(Job("attempt", on_clock))
        grader.release.set()
        _wait(lambda: _status(practice) == "passed" and _status(on_clock) == "passed", "both gradings")
    finally:
        grader.release.set()
        pool.stop()
    assert grader.ran["# interview\n"][0] < grader.ran["# practice\n"][0]


def test_a_claim_refused_for_the_users_running_grading_is_dispatched_again_when_it_ends(
    app_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process (a second worker) grades the user's first attempt; this pool's claim of the
    second is refused, and the end of the first dispatches the second again."""
    holder = _new_user()
    grader = HoldingGrader(held_files="# held")
    first = _committed(user_id=holder, kind="run", files={"model.py": "# held 1\n"})
    second = _committed(user_id=holder, files={"model.py": "# second\n"})
    pool = _pool(grader, {second}, monkeypatch, concurrency=1)
    elsewhere = threading.Thread(target=grade_attempt, args=(first,), kwargs={"grader": grader})
    try:
        elsewhere.start()
        _wait(lambda: _status(first) == "running", "the first grading elsewhere")
        assert grade_attempt(second, worker_prefix="local", grader=grader) == "deferred"
        pool.start()  # its recovery takes the second too, and is refused the same way
        time.sleep(0.5)
        assert _status(second) == "queued" and "# second\n" not in grader.ran
        grader.release.set()  # the first ends: its job dispatches the second, to this pool
        _wait(lambda: _status(second) == "passed", "the second attempt, dispatched again")
    finally:
        grader.release.set()
        elsewhere.join(timeout=30)
        pool.stop()


class Recording:
    """A dispatcher that only records what it is handed."""

    def __init__(self) -> None:
        self.jobs: list[Job] = []

    def enqueue(self, job: Job) -> None:
        self.jobs.append(job)

    def stop(self, timeout: float = 10.0) -> None:
        pass


def test_a_grading_closed_as_crash_by_the_sweep_dispatches_the_users_next_attempt(
    app_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No worker's job ends there, so the sweep itself releases the user's slot."""
    from app.attempts import recovery
    from app.core.settings import get_settings

    holder = _new_user()
    dead = _committed(user_id=holder, status="running", worker_id="w:dead", tries=get_settings().max_tries,
                      heartbeat_at=utcnow() - timedelta(seconds=3600))  # fmt: skip
    waiting = _committed(user_id=holder, kind="run")
    recording = Recording()
    monkeypatch.setattr(dispatcher_module, "_active", recording)
    recovery.sweep_stale(enqueue=recording.enqueue)
    assert _status(dead) == "error"
    assert Job("attempt", waiting) in recording.jobs
