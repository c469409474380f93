"""The judge: runs OUTSIDE the sandbox, in its own process, and writes the result.

It never imports the candidate's code. It starts by asking the agent "hello" (the agent answers once
the candidate's modules are imported, within the job's import limit), runs the interface's probes,
each of which composes requests to the agent and computes its measurements from the raw observations,
and writes result.json into a directory of its own that the sandbox cannot see. When the agent
vanishes mid-way (a crash, os._exit, a limit), the judge writes nothing: the runner classifies the
sandbox's end (timeout, memory, crash) as before.

Environment (set by the runner, app/sandbox/judge_process.py):
  DOJO_JUDGE_FDS     "TO_AGENT,FROM_AGENT": the write end of the request pipe, the read end of the replies
  DOJO_JUDGE_INPUT   the job's input JSON (the same the harness always got)
  DOJO_JUDGE_OUT     the directory the judge writes result.json into
  DOJO_PROGRESS_FD   optional: progress lines (display only)
"""

import json
import math
import os
import sys
import time

from . import progress
from .client import AgentClient, AgentGone, AgentTimeout, CandidateError
from .leave import leave
from .remote import ObservationError, Session

JUDGE_FDS_VAR = "DOJO_JUDGE_FDS"
JUDGE_INPUT_VAR = "DOJO_JUDGE_INPUT"
JUDGE_OUT_VAR = "DOJO_JUDGE_OUT"
RESULT_NAME = "result.json"
# Importing the candidate's files may take this long; time spent there beyond it is the candidate's
# (a sleep or a training loop at import time) and ends the run.
DEFAULT_IMPORT_SECONDS = 15.0
EXIT_AGENT_GONE = 3


def clean(value):
    """JSON-safe: non-finite floats become strings so the file stays strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def guarded(func, *args, **kwargs):
    """Run one probe; a fault of the candidate's code (or an answer that is not what was asked) becomes
    {'exception': description} instead of ending the run. AgentGone ends the run."""
    try:
        return func(*args, **kwargs)
    except CandidateError as exc:
        return {"exception": exc.message}
    except ObservationError as exc:
        return {"exception": f"ValueError: {exc}"}
    except AgentGone:
        raise
    except Exception as exc:  # the observations made a probe's own arithmetic fail (shapes, NaN, ...)
        return {"exception": f"{type(exc).__name__}: {str(exc)[:300]}"}


def run_probes(session, probes, *, selected=None):
    """Run (name, function) probes in order: ({name: measurements}, {name: seconds})."""
    chosen = [(name, func) for name, func in probes if selected is None or name in selected]
    out, seconds = {}, {}
    for k, (name, func) in enumerate(chosen, start=1):
        progress.report("probe", name=name, k=k, n=len(chosen))
        t0 = time.perf_counter()
        out[name] = guarded(func, session)
        seconds[name] = round(time.perf_counter() - t0, 3)
    return out, seconds


def write_result(out_dir, result):
    """result.json in out_dir, strict JSON, written atomically."""
    path = os.path.join(out_dir, RESULT_NAME)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(clean(result), fh, allow_nan=False)
    os.replace(tmp, path)


def judge(client, job, measure, *, schema, view=None):
    """The result dict for one job: hello (with the import limit), then `measure(session, job)`.
    Raises AgentGone when the agent vanished (no result then)."""
    limit = float(job.get("import_seconds") or DEFAULT_IMPORT_SECONDS)
    progress.report("importing")
    client.call("ready")  # the agent's own start (torch's import) is not the candidate's time
    try:
        hello = client.call("hello", timeout=limit)
    except AgentTimeout:
        return {"schema": schema, "probes": {}, "error": {
            "kind": "timeout",
            "message": f"Importing your files took longer than {limit:g} s: the run was stopped. Work done at "
                       "import time (a sleep, a training loop) counts against this limit."}}
    if not isinstance(hello, dict):
        raise AgentGone("the agent broke the protocol: a hello without facts")
    error = hello.get("error")
    if error is not None:
        kind = error.get("kind") if isinstance(error, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        return {"schema": schema, "probes": {}, "error": {
            "kind": kind if kind in ("syntax", "import", "memory") else "import",
            "message": str(message or "the files could not be imported")[:600]}}
    modules = [m for m in hello.get("modules") or [] if isinstance(m, str)]
    session = Session(client, modules, view=view)
    result = measure(session, job)
    result.setdefault("schema", schema)
    result.setdefault("error", None)
    return result


def _apply_limits():
    """The limits the runner asks for (DOJO_JUDGE_LIMITS): an address-space cap and a lower priority."""
    import resource

    try:
        limits = json.loads(os.environ.get("DOJO_JUDGE_LIMITS") or "{}")
    except ValueError:
        limits = {}
    memory = limits.get("memory_bytes")
    if isinstance(memory, int) and memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    nice = limits.get("nice")
    if isinstance(nice, int) and nice > 0:
        os.setpriority(os.PRIO_PROCESS, 0, max(nice, os.getpriority(os.PRIO_PROCESS, 0)))


def main(measure, *, schema, view=None):
    """The judge process's entry point: judges, writes the result, and ends the process (leave.py)."""
    leave(_judge_job(measure, schema=schema, view=view))


def _judge_job(measure, *, schema, view):
    """The exit code of judging the job the environment names (the result written when there is one)."""
    _apply_limits()
    fds = os.environ[JUDGE_FDS_VAR].split(",")
    client = AgentClient(int(fds[0]), int(fds[1]))
    with open(os.environ[JUDGE_INPUT_VAR], encoding="utf-8") as fh:
        job = json.load(fh)
    try:
        result = judge(client, job, measure, schema=schema, view=view)
    except AgentGone:
        return EXIT_AGENT_GONE
    client.bye()
    write_result(os.environ[JUDGE_OUT_VAR], result)
    return 0


if __name__ == "__main__":
    sys.exit("run an interface's judge.py, not the kit")
