"""Shared fixtures: a throw-away environment, databases in rolled-back transactions, service gates.

Tests that need PostgreSQL, Redis, bubblewrap or Chromium skip with the reason when the service is
missing, and fail instead when DOJO_REQUIRE_SERVICES=1 (CI sets it).
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# Choose the environment before anything from app/ is imported (settings are cached).
# Under pytest-xdist the workers inherit the environment of the process that started them: what that
# process chose here for itself (not what the user set) each worker chooses again, so every worker has
# its own data directory and databases. The reference cache is chosen once per run and shared.
_CHOSEN = "DOJO_TESTS_CHOSEN"
for _name in os.environ.pop(_CHOSEN, "").split():
    os.environ.pop(_name, None)
_chosen: list[str] = []


def _choose(name: str, value: str) -> None:
    """Set `name` unless the user did, remembering that this process chose it."""
    if name not in os.environ:
        os.environ[name] = value
        _chosen.append(name)


_TMP = Path(tempfile.mkdtemp(prefix="dojo-tests-"))
_choose("DOJO_DATA_DIR", str(_TMP / "data"))
os.environ["DATABASE_URL"] = f"sqlite:///{_TMP / 'data' / 'app.sqlite3'}"
_choose("SECRET_KEY", "test-secret-key-" + "x" * 40)
os.environ.pop("BROKER_URL", None)
# TestClient's requests name the host "testserver"; live servers are reached on 127.0.0.1.
_choose("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")
# Servers started by tests must not spend the CPU on reference warm-up (tests that need it enable it).
_choose("WARM_REFERENCES", "0")
# Nor on standby sandboxes importing torch in every pool thread (tests of warm sandboxes turn them on).
_choose("WARM_SANDBOXES", "0")
os.environ[_CHOSEN] = " ".join(_chosen)
# One reference cache for the whole run, every xdist worker and live server included (they inherit this
# environment): each built-in's reference is computed once, by whichever test grades it first. Entries are
# named by the package's content hash and the engine's fingerprint, so they can never be stale.
os.environ.setdefault("REFERENCE_CACHE_DIR", str(_TMP / "reference-cache"))

import pytest  # noqa: E402
from services import (  # noqa: E402
    POSTGRES_URL,
    REDIS_URL,
    require_bwrap,
    require_chromium,
    require_redis,
    service_missing,
)
from sqlalchemy import Engine, create_engine, text  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

__all__ = ["REDIS_URL", "require_bwrap", "require_chromium", "require_redis"]


def _postgres_engine() -> Engine:
    from app.core.db import make_engine

    engine = make_engine(POSTGRES_URL)
    try:
        with engine.connect() as conn:
            conn.execute(text("select 1"))
    except Exception as exc:
        service_missing(f"PostgreSQL not reachable at {POSTGRES_URL}: {exc.__class__.__name__}")
    return engine


# Fixtures whose value is a training run, that run real gradings (which train), or that run an interface's
# harness on a model in a child process (the engine's probes, seconds per call, a training run with every
# probe): a test that uses one is `slow`, so `scripts/test.sh --fast` leaves it out.
TRAINING_FIXTURES = frozenset({
    "reference", "runner", "use_subprocess_runner",
    "measure", "llama_measure", "llama_reference",
    "pipeline_measure", "pipeline_reference", "pipeline_run_reference",
})


@pytest.hookimpl(tryfirst=True)  # before -m selects by the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if TRAINING_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


class _LongFilesFirst:
    """Files with long tests first: pytest-xdist hands out whole files in this order (scripts/test.sh turns
    off its own reordering), so the longest start early and the short ones fill in around them, instead of
    one long file finishing the run alone. Among files with slow tests, those with the most go first (the
    other-shapes matrix and the built-ins' validations take minutes each)."""

    @pytest.hookimpl(trylast=True)  # after the selection and pytest's own ordering, which a stable sort keeps
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        weight: dict[Path, int] = {}
        slow: Counter[Path] = Counter()
        for item in items:
            heavy = 0 if item.get_closest_marker("slow") else \
                1 if item.get_closest_marker("browser") or item.get_closest_marker("bwrap") else 2
            weight[item.path] = min(weight.get(item.path, 2), heavy)
            slow[item.path] += heavy == 0
        items.sort(key=lambda item: (weight[item.path], -slow[item.path]))


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_LongFilesFirst(), "dojo-long-files-first")


@pytest.fixture(autouse=True)
def _gate_marked_tests(request: pytest.FixtureRequest) -> None:
    """Markers name what a test needs; the gate skips or fails before the test starts."""
    if request.node.get_closest_marker("bwrap"):
        require_bwrap()
    if request.node.get_closest_marker("browser"):
        require_chromium()
    if request.node.get_closest_marker("redis"):
        require_redis()
    if request.node.get_closest_marker("slow") or request.node.get_closest_marker("bwrap"):
        # This process grades again and again, as a worker does: its judges fork from a fork server
        # (app/sandbox/judge_server.py), started before the first such test and ready a moment later.
        from app.sandbox.judge_server import start_judge_fork_server

        start_judge_fork_server()


def _migrated(engine: Engine) -> Engine:
    """Migrated to head, with the built-in scenarios synced and committed: most tests sync them (the
    `published_version` fixture), which then finds them there instead of writing all 21 versions again in
    every rolled-back transaction (130 to 220 ms a test on PostgreSQL). On SQLite they stayed anyway (the
    rolled-back session does not undo every pysqlite commit)."""
    import app.models  # noqa: F401  (every table, so foreign keys resolve)
    from app.core.migrate import upgrade_to_head
    from app.scenarios.service import sync_builtin_scenarios

    upgrade_to_head(engine)
    with Session(engine) as session:
        sync_builtin_scenarios(session=session)
        session.commit()
    return engine


@pytest.fixture(scope="session")
def sqlite_engine() -> Iterator[Engine]:
    from app.core.db import make_engine

    path = _TMP / "rolled-back.sqlite3"
    engine = _migrated(make_engine(f"sqlite:///{path}", sqlite_savepoints=True))
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def postgres_engine() -> Iterator[Engine]:
    """A private schema in the test database, migrated to head, dropped at the end."""
    admin = _postgres_engine()
    schema = f"dojo_test_{os.getpid()}"
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    engine = create_engine(
        POSTGRES_URL, connect_args={"options": f"-csearch_path={schema}"}, pool_pre_ping=True
    )
    _migrated(engine)
    yield engine
    engine.dispose()
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_engine(request: pytest.FixtureRequest) -> Engine:
    """Each DB test runs once on SQLite and once on PostgreSQL."""
    name = "sqlite_engine" if request.param == "sqlite" else "postgres_engine"
    return request.getfixturevalue(name)


@contextmanager
def _rolled_back_session(engine: Engine) -> Iterator[Session]:
    """A session inside a transaction that is rolled back at the end, even if the code commits."""
    with engine.connect() as conn:
        trans = conn.begin()
        session = Session(bind=conn, join_transaction_mode="create_savepoint", expire_on_commit=False)
        try:
            yield session
        finally:
            session.close()
            trans.rollback()


@pytest.fixture
def db(db_engine: Engine) -> Iterator[Session]:
    """A rolled-back session, once on SQLite and once on PostgreSQL."""
    with _rolled_back_session(db_engine) as session:
        yield session


@pytest.fixture
def sqlite_db(sqlite_engine: Engine) -> Iterator[Session]:
    """Like `db`, SQLite only (for tests that are not about the database)."""
    with _rolled_back_session(sqlite_engine) as session:
        yield session
