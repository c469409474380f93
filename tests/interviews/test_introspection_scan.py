"""The introspection scan reads what a grader-tampering payload needs: code run from strings, decoders
(and the strings they decode, read like the file), ctypes, exit hooks, hard exits, sys.modules through
getattr. A plain model file raises nothing."""

from __future__ import annotations

import base64
import codecs

from app.engine.builtin import builtin_packages
from app.interviews.signals.introspection import scan_file


def _kinds(source: str) -> set[str]:
    return {f.kind for f in scan_file("model.py", source)}


def test_every_builtin_solution_and_starter_raises_nothing() -> None:
    for package in builtin_packages():
        for files in (package.solution_files, package.starter_files):
            for name, text in files.items():
                assert scan_file(name, text) == [], (package.slug, name)


def test_exec_eval_compile_and_marshal_are_dynamic_code() -> None:
    assert "dynamic_code" in _kinds("exec('x = 1')\n")
    assert "dynamic_code" in _kinds("y = eval('1 + 1')\n")
    assert "dynamic_code" in _kinds("code = compile('x', '<s>', 'eval')\n")
    assert "dynamic_code" in _kinds("import marshal\n")
    assert "dynamic_code" not in _kinds("import torch\nmodel = torch.compile(lambda x: x)\nmodel.eval()\n")


def test_a_base64_payload_is_decoded_and_read_at_the_line_that_decodes_it() -> None:
    hidden = base64.b64encode(b"import gc\nimport sys\nsys._getframe(1)\n").decode()
    source = f"import base64\n\nexec(base64.b64decode({hidden!r}))\n"
    findings = scan_file("model.py", source)
    kinds = {f.kind for f in findings}
    assert {"dynamic_code", "encoded_payload", "gc", "frame_walking"} <= kinds
    decoded = [f for f in findings if f.code.startswith("(decoded)")]
    assert decoded and all(f.line == 3 for f in decoded)


def test_a_rot13_payload_is_decoded_too() -> None:
    hidden = codecs.encode("import ctypes\n", "rot13")
    kinds = _kinds(f"import codecs\nexec(codecs.decode({hidden!r}, 'rot13'))\n")
    assert {"encoded_payload", "ctypes", "dynamic_code"} <= kinds


def test_sys_modules_through_getattr_exits_and_hooks() -> None:
    assert "frame_walking" in _kinds("import sys\nm = getattr(sys, 'modules')\n")
    assert "process_exit" in _kinds("import os\nos._exit(0)\n")
    assert "exit_hook" in _kinds("import atexit\natexit.register(print)\n")
    assert "monkeypatch" in _kinds("import json\njson.dump = print\n")
    assert "encoded_payload" in _kinds("data = bytes.fromhex('00ff')\n")
