"""The scenario domain's job kind, by name: one task of a scenario job (a validation run or a rejudge
grading). Its handlers are registered in app/scenarios/job_registration.py."""

from __future__ import annotations

from app.dispatch.registry import Job

JOB_TASK = "job-task"
JOB_TASK_NAME = "dojo.run_job_task"  # the Celery task; its message carries the task id


def task_job(task_id: int, *, background: bool = True) -> Job:
    return Job(JOB_TASK, task_id, background=background)
