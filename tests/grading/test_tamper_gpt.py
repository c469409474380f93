"""The tamper corpus on a gpt-v1 built-in: a starter with its bugs left in and a payload that forged a
pass when the probes shared the candidate's process. With the judge outside the sandbox every one grades
failed or error, and the interviewer's introspection signal names what the code shows."""

from __future__ import annotations

import pytest
from tamper_support import grade_tampered, tampered_files

from app.interviews.signals.introspection import scan_file

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

SLUG = "leaky-mask"
# The one payload that earns per-bug credit: its causal softmax, installed in torch itself, is a real
# (if hacky) fix of the leaky mask: every forward of the model stops seeing the future. Nothing else passes,
# and the introspection signal names the patch for the interviewer.
SCORE_ALLOWED = {"torch_patch": 0.25}
ATTACKS = {  # payload -> a finding kind the introspection signal must raise for it
    "probe_list": "frame_walking",
    "torch_patch": "monkeypatch",
    "json_patch": "monkeypatch",
    "result_then_exit": "process_exit",
    "atexit_hook": "exit_hook",
    "gc_walk": "gc",
    "frames": "frame_walking",
    "encoded_exec": "dynamic_code",
    "marshal_code": "dynamic_code",
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_payload_never_passes_and_is_signalled(name: str) -> None:
    report = grade_tampered(name, SLUG)
    assert report.status in ("failed", "error"), f"{name} graded {report.status}"
    assert report.score <= SCORE_ALLOWED.get(name, 0.0), report.bugs
    kinds = {f.kind for f in scan_file("model.py", tampered_files(name, SLUG)["model.py"])}
    assert ATTACKS[name] in kinds, kinds
