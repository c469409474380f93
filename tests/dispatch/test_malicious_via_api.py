"""The shared malicious corpus submitted through the product: the API, the local pool, the real grader.

Each case must end as failed or error with a short message that shows nothing it must not see,
while the server keeps answering, nothing escapes and an honest submission afterwards still passes.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sandbox.helpers import acceptance_dir, case_dirs, live_sandbox_processes

from app.auth.tokens import issue_token
from app.core.db import new_session
from app.core.settings import get_settings
from app.main import create_app
from app.users.service import create_user

from .processes import wait_for
from .tiny_scenario import SLUG, publish_tiny, warm_reference

pytestmark = pytest.mark.bwrap

# The acceptance README's expected kinds; cases not listed may fail or error with their own message.
EXPECTED_KINDS = {
    "fork_bomb": {"crash", "sandbox", "timeout"},
    "memory_bomb": {"memory"},
    "cpu_spin": {"timeout"},
    "sleep_forever": {"timeout"},
    "output_flood": {"output"},
    "segfault": {"crash"},
}
CANARY_DIRS = ["/", "/etc", "/usr", "/root", "/work", os.path.expanduser("~"), os.path.dirname(os.__file__)]


def _candidate_headers() -> dict[str, str]:
    with new_session() as session:
        user = create_user(session=session, email=f"m-{uuid.uuid4().hex[:10]}@example.com", password=None,
                           role="candidate")
        token = issue_token(session=session, user=user)
        session.commit()
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def low_time_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cases that never finish are stopped after seconds, not the production minute: an honest grading of
    the tiny scenario takes about 3 CPU-seconds even in a cold sandbox (its reference run's, torch's
    import included), and the spinning and sleeping cases each hold a pool slot until their limit."""
    monkeypatch.setenv("GRADING_CPU_SECONDS", "7")
    monkeypatch.setenv("GRADING_WALL_SECONDS", "12")
    monkeypatch.setenv("WARM_SANDBOXES", "1")  # as in production: each case runs in a pool thread's standby
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_shared_malicious_cases_through_the_api_end_contained(
    app_db: None, low_time_limits: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="app.sandbox.warm")
    cases = case_dirs(acceptance_dir())
    assert len(cases) >= 12, f"shared corpus not found at {acceptance_dir()}"
    with new_session() as session:
        solution = publish_tiny(session=session).content["solution_files"]["model.py"]
        session.commit()
    warm_reference()
    secrets = [os.environ["SECRET_KEY"], os.environ["DATABASE_URL"], "root:x:0:0", "/root/.bash_history: b"]
    host_scratch_before = {p for d in ("/tmp", "/dev/shm") for p in os.listdir(d)}

    with TestClient(create_app()) as client:  # the lifespan starts the local pool
        submitted = {}
        for case in cases:
            headers = _candidate_headers()
            body = {"scenario": SLUG, "kind": "submit", "files": {"model.py": (case / "model.py").read_text()}}
            response = client.post("/api/attempts", json=body, headers=headers)
            assert response.status_code == 202, response.text
            submitted[case.name] = (response.json()["id"], headers)
        assert client.get("/healthz").status_code == 200  # answering while the corpus is being graded

        views = {}
        for name, (attempt_id, headers) in submitted.items():
            views[name] = wait_for(
                lambda a=attempt_id, h=headers: (v := client.get(f"/api/attempts/{a}", headers=h).json())
                and v["status"] in ("passed", "failed", "error") and v,
                timeout=300, every=1, what=f"{name} to be graded")

        honest_headers = _candidate_headers()
        honest = client.post("/api/attempts", headers=honest_headers,
                             json={"scenario": SLUG, "kind": "submit", "files": {"model.py": solution}}).json()
        honest_view = wait_for(
            lambda: (v := client.get(f"/api/attempts/{honest['id']}", headers=honest_headers).json())
            and v["status"] in ("passed", "failed", "error") and v, timeout=180, every=1, what="honest attempt")
        assert client.get("/healthz").status_code == 200

    for name, view in views.items():
        assert view["status"] in ("failed", "error"), (name, view["status"])
        if view["status"] == "error":
            assert len(view["error"]["message"]) <= 600, name
        if name in EXPECTED_KINDS:
            assert view["status"] == "error" and view["error"]["kind"] in EXPECTED_KINDS[name], (name, view["error"])
        shown = json.dumps(view)
        for secret in secrets:
            assert secret not in shown, (name, secret)
    assert honest_view["status"] == "passed", honest_view["error"]
    warm_jobs = [r for r in caplog.records if r.getMessage() == "job ran in a warm standby sandbox"]
    assert len(warm_jobs) >= len(cases), "the pool threads did not grade in their standby sandboxes"
    assert not any(Path(d, "dojo_escape_canary.txt").exists() for d in CANARY_DIRS)
    host_scratch_after = {p for d in ("/tmp", "/dev/shm") for p in os.listdir(d)}
    assert not [p for p in host_scratch_after - host_scratch_before if p.startswith(("dojo_persist_", "fill.bin"))]
    assert live_sandbox_processes() == []
    assert sys.modules.get("model") is None  # candidate code never ran in the server process
