"""Turn the raw facts of a run into a HarnessOutcome with the right error kind and a safe message."""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from dataclasses import dataclass

from app.sandbox.job import ERROR_KINDS, HarnessOutcome, Limits
from app.sandbox.result_file import ResultRead

_MESSAGE_LIMIT = 600
_MEMORY_HINTS = (b"MemoryError", b"std::bad_alloc", b"Cannot allocate memory", b"out of memory")
_CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT, signal.SIGSYS}
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class RunFacts:
    """What the runner observed; stderr is only scanned for hints, never copied into messages."""

    wall_seconds: float
    timed_out: bool = False
    output_exceeded: bool = False
    exit_code: int | None = None
    exit_signal: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    result: ResultRead | None = None
    sandbox_failed: bool = False
    cpu_seconds: float | None = None
    launcher_lost: bool = False  # the in-sandbox launcher was killed before it reported
    judge_failed: bool = False  # the judge process (outside the sandbox) broke: not the candidate's doing


def _clean(message: object) -> str:
    """Short single-purpose message: strip control characters and cap the length."""
    text = _CONTROL_CHARS.sub("", str(message)).strip()
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 1] + "…"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def build_outcome(facts: RunFacts, *, limits: Limits) -> HarnessOutcome:
    """Classify one run: timeout, output, memory, crash, sandbox, or the harness's own error/result."""
    outcome = HarnessOutcome(
        result=None,
        stdout=_decode(facts.stdout),
        stderr=_decode(facts.stderr),
        wall_seconds=facts.wall_seconds,
        exit_code=facts.exit_code if facts.exit_signal is None else -facts.exit_signal,
    )

    def fail(kind: str, message: str) -> HarnessOutcome:
        outcome.error_kind = kind  # type: ignore[assignment]
        outcome.error_message = _clean(message)
        return outcome

    if facts.sandbox_failed:
        outcome.stderr = ""  # sandbox set-up errors name host paths
        return fail("sandbox", "The sandbox could not be started; the submission was not run.")
    if facts.timed_out:
        return fail("timeout", f"Time limit exceeded: the run was stopped after {limits.wall_seconds:g} s.")
    if facts.output_exceeded:
        return fail(
            "output",
            f"Output limit exceeded: more than {limits.max_output_bytes // 1024} KiB printed; the run was stopped.",
        )
    if facts.exit_signal in (signal.SIGXCPU,) or (
        facts.exit_signal == signal.SIGKILL and _cpu_exhausted(facts, limits)
    ):
        return fail("timeout", f"CPU time limit exceeded ({limits.cpu_seconds} s of CPU).")
    if facts.launcher_lost:
        return fail("crash", "The run was killed from inside the sandbox before it reported a result.")
    if facts.judge_failed:
        return fail("sandbox", "The grader failed while judging this run; it was not the submission's fault.")
    read = facts.result
    if read is not None and read.result is not None:
        return _from_result(outcome, read.result, fail)
    memory_hint = any(hint in facts.stderr for hint in _MEMORY_HINTS)
    if read is not None and read.too_large:
        return fail("output", "The result was larger than allowed and was not read.")
    if facts.exit_signal is not None:
        if memory_hint:
            return fail("memory", f"Memory limit exceeded (killed by {_signal_name(facts.exit_signal)}).")
        if facts.exit_signal in _CRASH_SIGNALS:
            return fail("crash", f"The program crashed ({_signal_name(facts.exit_signal)}).")
        return fail("crash", f"The program was killed by {_signal_name(facts.exit_signal)}.")
    if memory_hint:
        return fail("memory", "Memory limit exceeded: the program ran out of memory.")
    if read is not None and not read.missing and read.problem:
        return fail("crash", read.problem)
    if facts.exit_code:
        return fail("crash", f"The program exited with code {facts.exit_code} without writing a result.")
    return fail("crash", "The program finished without writing a result.")


def _cpu_exhausted(facts: RunFacts, limits: Limits) -> bool:
    """The kernel sends SIGKILL at the hard CPU limit; a run that long was the CPU limit, not OOM."""
    used = facts.cpu_seconds if facts.cpu_seconds is not None else facts.wall_seconds
    return used >= limits.cpu_seconds


def _from_result(
    outcome: HarnessOutcome, result: dict[str, object], fail: Callable[[str, str], HarnessOutcome]
) -> HarnessOutcome:
    """A valid result object: either the harness's own error report or measurements."""
    outcome.result = result
    error = result.get("error")
    if error is None:
        return outcome
    if isinstance(error, dict) and error.get("kind") in ERROR_KINDS:
        return fail(str(error["kind"]), str(error.get("message") or error["kind"]))
    message = error.get("message") if isinstance(error, dict) else error
    return fail("crash", str(message or "The harness reported an error."))
