"""Classification of raw run facts into error kinds and safe messages."""

from __future__ import annotations

import signal

from app.sandbox.job import Limits
from app.sandbox.outcome import RunFacts, build_outcome
from app.sandbox.result_file import ResultRead

LIMITS = Limits(cpu_seconds=10, wall_seconds=20)


def test_build_outcome_passes_a_valid_result_through() -> None:
    outcome = build_outcome(RunFacts(wall_seconds=1, exit_code=0, result=ResultRead({"x": 1})), limits=LIMITS)
    assert outcome.ok and outcome.result == {"x": 1}


def test_build_outcome_passes_harness_syntax_and_import_errors_through() -> None:
    for kind in ("syntax", "import", "memory"):
        result = ResultRead({"error": {"kind": kind, "message": f"{kind} problem"}})
        outcome = build_outcome(RunFacts(wall_seconds=1, exit_code=0, result=result), limits=LIMITS)
        assert (outcome.error_kind, outcome.error_message) == (kind, f"{kind} problem")


def test_build_outcome_maps_unknown_harness_error_kinds_to_crash() -> None:
    result = ResultRead({"error": {"kind": "root-shell", "message": "boom"}})
    outcome = build_outcome(RunFacts(wall_seconds=1, exit_code=0, result=result), limits=LIMITS)
    assert outcome.error_kind == "crash"


def test_build_outcome_reports_wall_timeout_before_anything_else() -> None:
    facts = RunFacts(wall_seconds=20.1, timed_out=True, output_exceeded=True, result=ResultRead({"x": 1}))
    outcome = build_outcome(facts, limits=LIMITS)
    assert outcome.error_kind == "timeout" and "20 s" in (outcome.error_message or "")


def test_build_outcome_reports_cpu_limit_signals_as_timeout() -> None:
    xcpu = build_outcome(RunFacts(wall_seconds=11, exit_signal=signal.SIGXCPU), limits=LIMITS)
    hard = build_outcome(RunFacts(wall_seconds=12, exit_signal=signal.SIGKILL, cpu_seconds=12.0), limits=LIMITS)
    assert xcpu.error_kind == hard.error_kind == "timeout"


def test_build_outcome_reports_segfault_as_crash_and_memory_hints_as_memory() -> None:
    crash = build_outcome(RunFacts(wall_seconds=1, exit_signal=signal.SIGSEGV), limits=LIMITS)
    assert crash.error_kind == "crash" and "SIGSEGV" in (crash.error_message or "")
    oom = build_outcome(RunFacts(wall_seconds=1, exit_code=1, stderr=b"...\nMemoryError\n"), limits=LIMITS)
    assert oom.error_kind == "memory"


def test_build_outcome_hides_sandbox_setup_errors_that_name_host_paths() -> None:
    facts = RunFacts(wall_seconds=0.1, sandbox_failed=True, stderr=b"bwrap: Can't find source path /srv/secret")
    outcome = build_outcome(facts, limits=LIMITS)
    assert outcome.error_kind == "sandbox"
    assert "/srv/secret" not in (outcome.error_message or "") + outcome.stderr


def test_build_outcome_caps_and_cleans_long_harness_messages() -> None:
    result = ResultRead({"error": {"kind": "import", "message": "\x1b[31m" + "y" * 5000}})
    outcome = build_outcome(RunFacts(wall_seconds=1, exit_code=0, result=result), limits=LIMITS)
    assert outcome.error_message is not None
    assert len(outcome.error_message) <= 600 and "\x1b" not in outcome.error_message


def test_build_outcome_reports_oversized_results_as_output() -> None:
    facts = RunFacts(wall_seconds=1, exit_code=0, result=ResultRead(None, "big", too_large=True))
    assert build_outcome(facts, limits=LIMITS).error_kind == "output"
