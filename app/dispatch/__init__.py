"""Running grading jobs: claiming attempt rows, the local pool, Celery workers and recovery."""
