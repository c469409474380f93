"""The tamper corpus on a llama-v1 built-in (see test_tamper_gpt.py): payloads aimed at the harness and
at the agent of the judge/agent split. Every one grades failed or error, never passed."""

from __future__ import annotations

import pytest
from tamper_support import grade_tampered, tampered_files

from app.interviews.signals.introspection import scan_file

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

SLUG = "cache-drift"
ATTACKS = {
    "forged_signature": "frame_walking",
    "agent_answer": "frame_walking",
    "thread_edit": "gc",
    "oversized_reply": "frame_walking",
    "reach_judge": "ctypes",
    "rot13_exec": "encoded_payload",
    "encoded_exec": "encoded_payload",
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_payload_never_passes_and_is_signalled(name: str) -> None:
    report = grade_tampered(name, SLUG)
    assert report.status in ("failed", "error"), f"{name} graded {report.status}"
    assert report.score == 0.0 and not any(b.fixed for b in report.bugs), report.bugs
    kinds = {f.kind for f in scan_file("model.py", tampered_files(name, SLUG)["model.py"])}
    assert ATTACKS[name] in kinds, kinds
