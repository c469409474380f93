"""The Celery worker has its own entry point and never imports the web app."""

from __future__ import annotations

import subprocess
import sys

from app.core.paths import ROOT_DIR

WEB_MODULES = ("app.main", "app.routers", "app.web", "app.auth", "fastapi", "starlette", "uvicorn")


def test_worker_entry_point_imports_no_web_module() -> None:
    code = (
        "import sys, app.worker, app.attempts.grading_job, app.scenarios.task_runner, app.coaching.service\n"
        f"print(sorted(m for m in sys.modules if m.startswith({WEB_MODULES!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT_DIR, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_worker_command_refuses_to_start_without_broker(monkeypatch) -> None:
    from app.core.settings import get_settings
    from app.worker import worker_command

    monkeypatch.setattr(get_settings(), "broker_url", "")
    assert worker_command(concurrency=1) == 2


def test_celery_settings_never_lose_a_task() -> None:
    from app.dispatch.celery_app import get_celery

    conf = get_celery().conf
    assert conf.task_acks_late is True and conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    assert 0 < conf.task_soft_time_limit < conf.task_time_limit
