"""Every malicious submission (shared corpus + our classic cases) through the real bubblewrap runner."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.warm import WarmKeeper

from .helpers import (
    FIXTURE_HARNESS,
    OWN_CASES,
    REPO_ROOT,
    TEST_LIMITS,
    acceptance_dir,
    case_dirs,
    job_for,
    live_children,
    live_sandbox_processes,
    outcome_text,
)
from .runs import ColdRuns, WarmRuns

pytestmark = pytest.mark.bwrap

OK = None  # the harness finished normally; the grader's checks would then fail the attempt


@dataclass(frozen=True)
class Expect:
    kinds: frozenset[str | None]
    contains: tuple[str, ...] = ()
    forbids: tuple[str, ...] = ()


def expect(*kinds: str | None, contains: tuple[str, ...] = (), forbids: tuple[str, ...] = ()) -> Expect:
    return Expect(frozenset(kinds), contains, forbids)


EXPECTED: dict[str, Expect] = {
    # shared acceptance corpus
    "cpu_spin": expect("timeout"),
    "disk_fill": expect("import", contains=("disk fill attempted",)),
    "fork_bomb": expect("timeout"),  # fork is refused; the loop spins until the CPU limit
    "memory_bomb": expect("memory"),
    "network": expect("import", forbids=("CONNECTED", "DNS RESOLVED")),
    "output_flood": expect("output"),
    "persist_tmp": expect("import", contains=("found from earlier runs: []",)),
    "read_host": expect("import", contains=("/etc/shadow: FileNotFoundError",), forbids=("root:x:0:0", "root:*:")),
    "segfault": expect("crash", contains=("SIGSEGV",)),
    "sleep_forever": expect("timeout"),
    "symlink_out": expect(OK, forbids=("root:x:0:0",)),
    # HOME=/tmp is the sandbox's own tmpfs, so that one write is allowed; nothing else may succeed.
    "write_host": expect("import", contains=("wrote into: ['/tmp']",)),
    # our classic cases
    "atexit_exit": expect("crash"),
    "daemon_escape": expect("import", contains=("PermissionError",)),  # no new processes by default
    "deep_recursion": expect("crash"),
    "dev_access": expect("import", contains=("/dev/mem: FileNotFoundError",)),
    "exit_without_result": expect("crash", contains=("without writing a result",)),
    "fd_exhaustion": expect("import", "crash"),
    "forge_status": expect(  # no procfs in the sandbox: the launcher's fds and memory are not even there
        "import", contains=("fd list: FileNotFoundError", "mem: FileNotFoundError"), forbids=("forged",)
    ),
    "fill_output_dir": expect("import", "crash"),
    "huge_file": expect("import", contains=("File too large",)),  # Python ignores SIGXFSZ: EFBIG
    "import_error": expect("import", contains=("ModuleNotFoundError",)),
    "kill_everything": expect("crash"),
    "mount_escape": expect("import", contains=("chroot: PermissionError",)),
    # Nothing writable outside the sandbox's own tmpfs, and nothing of an earlier job (warm or cold) in it.
    "plant_next": expect(
        "import", contains=("planted in ['/dev/shm', '/dojo/out', '/dojo/work', '/tmp']; found from earlier jobs: []",)
    ),
    "proc_environ": expect("import"),
    "ptrace_parent": expect("import", contains=("errno 1",)),
    "read_app_source": expect("import"),
    "result_directory": expect("crash", contains=("not a regular file",)),
    "result_fifo": expect("crash", contains=("not a regular file",)),
    "result_huge": expect("output", contains=("larger than allowed",)),
    "result_not_json": expect("crash", contains=("not valid JSON",)),
    "result_not_object": expect("crash", contains=("JSON object",)),
    "result_race": expect("import", contains=("PermissionError",)),
    "result_symlink": expect("crash", contains=("symbolic link",)),
    "setuid_root": expect("import", contains=("setuid: ",), forbids=("uid=0 ", "euid=0")),
    "signal_parent": expect("crash"),
    "syntax_error": expect("syntax", contains=("line 1",)),
    "thread_bomb": expect("import", "memory", "crash", "timeout"),
    "unix_sockets": expect("import"),
    "write_harness": expect("import", contains=("main.py: PermissionError",)),
    "zip_bomb": expect("memory"),
}

ALL_CASES = case_dirs(acceptance_dir()) + case_dirs(OWN_CASES)
# Never shown to a candidate: markers of success in our cases, host paths of the run, the app source.
ALWAYS_FORBIDDEN = ("BREACH", "dojo-run-", str(REPO_ROOT / "app"), "/run/dojo-sandbox", "stage-")
HOST_SCRATCH = ("/tmp", "/dev/shm", "/var/tmp")
LEFTOVER_NAMES = ("dojo_escape_canary.txt", "fill.bin", "daemon_alive", "big.bin")


def _host_leftovers() -> set[str]:
    found = set()
    for directory in HOST_SCRATCH:
        for name in os.listdir(directory) if os.path.isdir(directory) else []:
            if name in LEFTOVER_NAMES or name.startswith("dojo_persist_"):
                found.add(f"{directory}/{name}")
    for directory in ("/", "/etc", "/usr", "/root", "/work", str(FIXTURE_HARNESS), os.path.dirname(os.__file__)):
        if os.path.lexists(os.path.join(directory, "dojo_escape_canary.txt")):
            found.add(directory)
    return found


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_corpus_has_at_least_25_cases_and_every_case_has_an_expectation() -> None:
    names = [case.name for case in ALL_CASES]
    assert len(case_dirs(acceptance_dir())) >= 12, f"shared corpus not found at {acceptance_dir()}"
    assert len(names) >= 25
    assert sorted(set(names) - set(EXPECTED)) == []


def _run_case_and_check(case: Path, fake_secrets: list[str], runs: ColdRuns | WarmRuns) -> None:
    expected = EXPECTED[case.name]
    leftovers_before = _host_leftovers()
    harness_before = _tree_digest(FIXTURE_HARNESS)

    outcome = runs.run((case / "model.py").read_text())

    text = outcome_text(outcome)
    assert outcome.error_kind in expected.kinds, (outcome.error_kind, outcome.error_message)
    for needle in expected.contains:
        assert needle in text, f"{needle!r} missing from {outcome.error_message!r}"
    for needle in (*expected.forbids, *ALWAYS_FORBIDDEN, *fake_secrets):
        assert needle not in text, f"{needle!r} leaked"
    if outcome.error_kind is not None:
        assert outcome.error_message and len(outcome.error_message) <= 600
    assert len(outcome.stdout.encode()) <= 64 * 1024 and len(outcome.stderr.encode()) <= 64 * 1024
    runs.assert_nothing_left()
    assert _host_leftovers() == leftovers_before
    assert _tree_digest(FIXTURE_HARNESS) == harness_before


def _run_planting_case_twice(name: str, runs: ColdRuns | WarmRuns) -> None:
    case = next(c for c in ALL_CASES if c.name == name)
    first = runs.run((case / "model.py").read_text())
    second = runs.run((case / "model.py").read_text())
    for outcome in (first, second):
        assert outcome.error_kind == "import"
        assert outcome.error_message is not None and outcome.error_message.endswith(": []"), outcome.error_message


# Cold runs first: each case in a sandbox started for it, and nothing else of ours alive meanwhile.
@pytest.mark.parametrize("case", ALL_CASES, ids=[case.name for case in ALL_CASES])
def test_malicious_case_ends_contained_with_expected_kind(case: Path, fake_secrets: list[str], tmp_path: Path) -> None:
    runs = ColdRuns(tmp_path)
    _run_case_and_check(case, fake_secrets, runs)
    # The next, honest submission is still graded normally.
    follow_up = runs.run("VALUE = 'honest'")
    assert follow_up.ok and follow_up.result is not None and follow_up.result["value"] == "honest"


@pytest.mark.parametrize("name", ["persist_tmp", "plant_next"])
def test_planting_case_run_twice_finds_nothing_from_the_first_run(name: str, tmp_path: Path) -> None:
    _run_planting_case_twice(name, ColdRuns(tmp_path))


# With processes allowed (BwrapRunner(allow_processes=True)) the same cases must still be contained.
PROCESS_CASES: dict[str, Expect] = {
    "fork_bomb": expect("crash", "sandbox", "timeout"),
    "daemon_escape": expect(OK, contains=("daemon started",)),
    "result_race": expect(OK, "crash"),
    "kill_everything": expect("crash"),
    "signal_parent": expect("crash"),
}


@pytest.mark.parametrize("name", sorted(PROCESS_CASES))
def test_process_cases_are_contained_when_processes_are_allowed(
    name: str, fake_secrets: list[str], tmp_path: Path
) -> None:
    case = next(c for c in ALL_CASES if c.name == name)
    expected = PROCESS_CASES[name]
    runner = BwrapRunner(workspace_parent=tmp_path, allow_processes=True)
    outcome = runner.run(job_for((case / "model.py").read_text()))
    text = outcome_text(outcome)
    assert outcome.error_kind in expected.kinds, (outcome.error_kind, outcome.error_message)
    for needle in expected.contains:
        assert needle in text
    for needle in (*ALWAYS_FORBIDDEN, *fake_secrets):
        assert needle not in text, f"{needle!r} leaked"
    assert live_sandbox_processes() == []
    assert live_children() == []
    assert list(tmp_path.iterdir()) == []


# Then the warm runs, last in the module: its one keeper's standby stays alive from here to the end.
@pytest.fixture(scope="module")
def warm_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WarmRuns]:
    """One worker slot's keeper for all warm runs, as a worker keeps one: each case runs in the standby that
    the keeper started after the job before it, as a worker's next job does. These standbys preload nothing:
    what a case may reach, keep or leave behind does not depend on what the standby imported before it,
    and each torch import (the standby's and its judge's, about 3 CPU-seconds a case) would double the
    module's cost. Standbys with torch imported meet the shared corpus through the product in
    tests/dispatch/test_malicious_via_api.py, and their limits in tests/sandbox/test_warm.py."""
    keeper = WarmKeeper(limits=TEST_LIMITS, preload=(), workspace_parent=tmp_path_factory.mktemp("warm"))
    keeper.prepare()
    yield WarmRuns(keeper)
    keeper.close()


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.name for case in ALL_CASES])
def test_malicious_case_in_a_warm_standby_ends_contained_with_expected_kind(
    case: Path, fake_secrets: list[str], warm_runs: WarmRuns
) -> None:
    _run_case_and_check(case, fake_secrets, warm_runs)


@pytest.mark.parametrize("name", ["persist_tmp", "plant_next"])
def test_planting_case_run_twice_in_warm_standbys_finds_nothing_from_the_first_run(
    name: str, warm_runs: WarmRuns
) -> None:
    _run_planting_case_twice(name, warm_runs)
