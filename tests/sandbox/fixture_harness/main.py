"""Tiny trusted test harness: import the candidate's model.py and report what happened in result.json."""

import json
import os
import sys
import time


def write_result(obj):
    out_dir = os.environ["DOJO_OUT"]
    tmp = os.path.join(out_dir, ".result.tmp")
    # Write to a fresh name and rename over result.json, so a planted link is replaced, not followed.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w") as handle:
        json.dump(obj, handle)
    os.replace(tmp, os.path.join(out_dir, "result.json"))


def main():
    with open(os.environ["DOJO_INPUT"]) as handle:
        job_input = json.load(handle)
    sys.path.insert(0, os.environ["DOJO_CANDIDATE_DIR"])
    started = time.monotonic()
    try:
        import model  # noqa: F401  (runs the candidate's module code)
    except SyntaxError as exc:
        write_result({"error": {"kind": "syntax", "message": f"SyntaxError: {exc.msg} (line {exc.lineno})"}})
        return
    except MemoryError:
        write_result({"error": {"kind": "memory", "message": "MemoryError while importing model.py"}})
        return
    except BaseException as exc:  # the candidate's own exception, SystemExit included
        text = f"{exc.__class__.__name__}: {exc}"[:2000]
        write_result({"error": {"kind": "import", "message": text}})
        return
    value = getattr(model, "VALUE", None)
    write_result({"ok": True, "echo": job_input.get("echo"), "value": value, "seconds": time.monotonic() - started})


main()
