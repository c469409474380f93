"""The agent: runs INSIDE the sandbox, in the process that imports the candidate's code, and answers the
judge's narrow requests with raw observations (tensors and plain facts), never with verdicts.

The judge runs in another process outside the sandbox and composes every request: which model to build
with which config and seed, which weights to load, which tokens to feed, what to differentiate. The agent
only does what it is asked on the candidate's code and returns what came out. Candidate code shares this
process and may rewrite any of it; that only changes the raw observations, which the judge checks
against its own computations (a loss against the cross-entropy of the returned logits, training curves
against the final weights' logits on the judge's own batches, ...). Nothing here decides a result.

Protocol: frames of app/engine/kit/wire.py on two pipes (DOJO_AGENT_FDS="IN,OUT"). Each request is
{"op": name, "args": {...}}; each reply {"ok": true, "result": ...} or {"ok": false, "error": "Type:
message (file.py:line)"} when the candidate's code raised. The first request is "ready", answered at
once (the agent has started, torch imported); then "hello", answered once the candidate's modules are
imported (the judge times that import alone). "bye" ends the loop.

Standalone: stdlib + torch + this package.
"""

import contextlib
import importlib
import os
import sys
import traceback
from collections.abc import Callable

import torch

from .leave import leave
from .wire import WireClosed, read_frame, write_frame

AGENT_FDS_VAR = "DOJO_AGENT_FDS"
MAX_MESSAGE = 400
# Requests are small (tokens, a few weight tensors); anything larger is not the judge.
MAX_REQUEST_BYTES = 64 * 1024 * 1024


def describe(exc, candidate_dir=None):
    """'TypeError: message (model.py:42)' naming the deepest frame inside the candidate's files."""
    text = f"{type(exc).__name__}: {exc}".strip()
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 3] + "..."
    where = None
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f"{os.path.basename(exc.filename)}:{exc.lineno}"
    elif candidate_dir:
        root = os.path.realpath(candidate_dir)
        for frame in traceback.extract_tb(exc.__traceback__):
            if os.path.realpath(frame.filename).startswith(root + os.sep):
                where = f"{os.path.basename(frame.filename)}:{frame.lineno}"
    return f"{text} ({where})" if where else text


def import_candidate(candidate_dir, names):
    """Import each named module fresh from the candidate directory: (modules, None) or (None, error)
    where error is {"kind": "syntax" | "memory" | "import", "message"}."""
    if candidate_dir not in sys.path:
        sys.path.insert(0, candidate_dir)
    modules = {}
    for name in names:
        sys.modules.pop(name, None)
        try:
            modules[name] = importlib.import_module(name)
        except SyntaxError as exc:
            return None, {"kind": "syntax", "message": describe(exc, candidate_dir)}
        except MemoryError as exc:
            return None, {"kind": "memory", "message": describe(exc, candidate_dir)}
        except BaseException as exc:  # SystemExit and friends at import time are import errors too
            return None, {"kind": "import", "message": describe(exc, candidate_dir)}
    return modules, None


class Agent:
    """The candidate's modules, the objects built on the judge's request (by handle) and the ops."""

    def __init__(self, candidate_dir, modules, import_error=None, *, importer=None):
        self.candidate_dir = candidate_dir
        self.mods = modules or {}
        self.import_error = import_error
        # Imports the candidate's modules at the first "hello" (None: already imported), so the judge's
        # import limit counts the candidate's import and not the interpreter's or torch's.
        self._importer = importer
        self.objects = {}
        self._next = 0
        self.ops: dict[str, Callable[..., object]] = {"ready": self.ready, "hello": self.hello, "drop": self.drop}

    def keep(self, obj):
        """Store an object for later requests; its handle is what the judge names it by."""
        self._next += 1
        self.objects[self._next] = obj
        return self._next

    def get(self, handle):
        try:
            return self.objects[handle]
        except (KeyError, TypeError):
            raise KeyError(f"no object {handle!r}") from None

    def ready(self):
        """Answered before the candidate's code is imported: the agent's own start-up is done."""
        return True

    def hello(self):
        if self._importer is not None:
            importer, self._importer = self._importer, None
            importer(self)
        if self.import_error is not None:
            return {"error": self.import_error}
        return {"error": None, "modules": sorted(self.mods)}

    def drop(self, handles):
        for handle in handles:
            self.objects.pop(handle, None)
        return None

    def register(self, ops):
        self.ops.update(ops)

    def answer(self, request):
        """One reply for one request (candidate exceptions become error replies)."""
        if not isinstance(request, dict) or not isinstance(request.get("op"), str):
            return {"ok": False, "error": "ValueError: not a request"}
        op = self.ops.get(request["op"])
        args = request.get("args") or {}
        if op is None or not isinstance(args, dict):
            return {"ok": False, "error": f"ValueError: unknown request {request['op']!r}"}
        try:
            return {"ok": True, "result": op(**args)}
        except (Exception, SystemExit) as exc:  # candidate code may raise anything, even sys.exit()
            return {"ok": False, "error": describe(exc, self.candidate_dir)}

    def serve(self, fd_in, fd_out):
        """Answer requests until "bye" or the judge closes its end."""
        while True:
            try:
                request = read_frame(fd_in, MAX_REQUEST_BYTES)
            except WireClosed:
                return
            if isinstance(request, dict) and request.get("op") == "bye":
                write_frame(fd_out, {"ok": True, "result": None})
                return
            reply = self.answer(request)
            try:
                write_frame(fd_out, reply)
            except (Exception, SystemExit) as exc:  # a result that cannot cross the wire
                write_frame(fd_out, {"ok": False, "error": describe(exc, self.candidate_dir)})


def agent_fds():
    """(in, out) from DOJO_AGENT_FDS."""
    value = os.environ.get(AGENT_FDS_VAR, "")
    parts = value.split(",")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise SystemExit(f"{AGENT_FDS_VAR} is not set: the agent runs only under a judge")
    return int(parts[0]), int(parts[1])


def run(register, *, names):
    """The agent's main: import the candidate's modules, register the interface's ops, serve, then end
    the process (leave.py).

    `register(agent)` adds the interface's ops; `names` are the candidate's module names to import."""
    torch.set_num_threads(1)
    fd_in, fd_out = agent_fds()
    # Progress is the judge's to report; the candidate's process keeps no channel but the judge's.
    progress = os.environ.pop("DOJO_PROGRESS_FD", "")
    if progress.isdigit():
        with contextlib.suppress(OSError):
            os.close(int(progress))
    candidate_dir = os.environ["DOJO_CANDIDATE_DIR"]

    def importer(agent):
        agent.mods, agent.import_error = import_candidate(candidate_dir, names)
        agent.mods = agent.mods or {}
        if agent.import_error is None:
            register(agent)

    Agent(candidate_dir, None, importer=importer).serve(fd_in, fd_out)
    leave(0)  # the judge has its answers (leave.py: no teardown, no candidate exit hooks)
