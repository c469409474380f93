"""Short, environment-free descriptions of exceptions raised by candidate code."""

import os
import traceback

MAX_MESSAGE = 400


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


def guarded(func, candidate_dir, *args, **kwargs):
    """Run one probe; an exception becomes {'exception': description} instead of ending the run."""
    try:
        return func(*args, **kwargs)
    except (Exception, SystemExit) as exc:  # candidate code may raise anything, even sys.exit()
        return {"exception": describe(exc, candidate_dir)}
