"""The `dojo` command line, run as a real process against a fresh data directory."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.users.passwords import password_problem

pytestmark = pytest.mark.processes  # scripts/test.sh --fast leaves them out


def run_dojo(data_dir: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY"}}
    env["DOJO_DATA_DIR"] = str(data_dir)
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "var"


def test_migrate_creates_data_dir_and_database(data_dir: Path) -> None:
    result = run_dojo(data_dir, "migrate")
    assert result.returncode == 0, result.stderr
    tables = {r[0] for r in sqlite3.connect(data_dir / "dojo.sqlite3").execute("select name from sqlite_master")}
    assert {"users", "attempts", "scenario_versions", "alembic_version"} <= tables


def test_create_user_then_duplicate_is_refused(data_dir: Path) -> None:
    ok = run_dojo(data_dir, "create-user", "--email", "Ann@Example.com", "--password", "longenough1", "--role",
                  "interviewer")
    assert ok.returncode == 0, ok.stderr
    assert "interviewer ann@example.com" in ok.stdout
    again = run_dojo(data_dir, "create-user", "--email", "ann@example.com", "--password", "longenough1", "--role",
                     "candidate")
    assert again.returncode == 2
    assert "already exists" in again.stderr


def test_create_user_rejects_short_password_and_bad_role(data_dir: Path) -> None:
    short = run_dojo(data_dir, "create-user", "--email", "b@example.com", "--password", "x", "--role", "admin")
    assert short.returncode == 2 and "at least 8" in short.stderr
    bad_role = run_dojo(data_dir, "create-user", "--email", "b@example.com", "--password", "longenough1",
                        "--role", "owner")
    assert bad_role.returncode != 0 and "invalid choice" in bad_role.stderr


def test_create_user_refuses_a_guessable_password_and_says_why(data_dir: Path) -> None:
    weak = run_dojo(data_dir, "create-user", "--email", "c@example.com", "--password", "12345678", "--role", "admin")
    assert weak.returncode == 2
    assert "too easy to guess" in weak.stderr and "three or four unrelated words" in weak.stderr


def test_first_admin_is_created_once(data_dir: Path) -> None:
    first = run_dojo(data_dir, "first-admin")
    assert first.returncode == 0, first.stderr
    creds = (data_dir / "first-admin.txt").read_text()
    assert "admin@dojo.local" in creds and "password: " in creds
    password = creds.split("password: ", 1)[1].strip()
    assert password_problem(password, email="admin@dojo.local") is None  # the same rule as every password
    second = run_dojo(data_dir, "first-admin")
    assert second.returncode == 0
    assert (data_dir / "first-admin.txt").read_text() == creds
    admins = sqlite3.connect(data_dir / "dojo.sqlite3").execute("select count(*) from users where role='admin'")
    assert admins.fetchone()[0] == 1


def test_grade_without_sandbox_is_a_clear_error(data_dir: Path, tmp_path: Path) -> None:
    result = run_dojo(data_dir, "grade", "warm-up", str(tmp_path), DOJO_BWRAP="/nonexistent/bwrap",
                      DOJO_UNSAFE_SUBPROCESS="0")
    assert result.returncode == 2
    assert result.stderr.startswith("error: Refusing to run candidate code") and "Traceback" not in result.stderr
