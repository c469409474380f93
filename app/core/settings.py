"""One Settings object for the whole app, read from the environment (and a .env file)."""

from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

MIN_SECRET_KEY_CHARS = 32
# How many guesses (log10, zxcvbn's estimate) a production key must need: about 80 bits at least,
# and random-looking unless it is huge. Random keys need 0.88 to 1 digit of guesses per character
# (32 random hex characters: 10^28 and up); phrases and repeats fall below 0.8 ("production secret key
# for the dojo app": 10^27.8 over 38 characters; "changeme-changeme-..." and 32 x "a": under 10^9).
MIN_SECRET_KEY_GUESSES_LOG10 = 24.0
MIN_SECRET_KEY_DIGITS_PER_CHAR = 0.8
ENOUGH_SECRET_KEY_GUESSES_LOG10 = 40.0
MAKE_A_KEY = "python -c 'import secrets; print(secrets.token_urlsafe(48))'"


class Settings(BaseSettings):
    """Runtime configuration; see CONTRACTS.md for the public variables."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    dojo_env: str = "development"
    dojo_data_dir: Path = Path("./var")
    database_url: str = ""
    secret_key: str = ""
    broker_url: str = ""
    # None: Secure cookies in production, plain ones in development (COOKIE_SECURE overrides).
    cookie_secure: bool | None = None
    session_max_age_seconds: int = 12 * 3600
    # Limits on what a request may carry; bigger inputs are refused, never truncated.
    max_file_bytes: int = 64 * 1024
    max_files_per_attempt: int = 8
    max_form_field_chars: int = 20_000
    # Every JSON (or other non-form) body is refused above this size, before it is parsed.
    max_request_body_bytes: int = 2 * 1024 * 1024
    # A scenario package zip (POST /api/admin/scenarios): the zip, and separately its unpacked content;
    # a multipart upload may be this large plus UPLOAD_OVERHEAD_BYTES (app/web/limits.py). The other
    # zip checks (64 entries, 256 KiB a file, 100:1 ratio, paths) do not change with it.
    scenario_zip_max_bytes: int = 5 * 1024 * 1024
    # Login throttling (app/auth/rate_limit.py): every attempt per client address; failures per
    # account from one client (a guesser elsewhere cannot lock the owner out); failures per account
    # from all clients (the ceiling on a distributed guesser).
    login_attempts_per_ip: int = 20
    login_attempts_per_account: int = 5
    login_failures_per_account_everywhere: int = 50
    login_window_seconds: int = 300
    # Invite links that do not exist, tried from one client address within login_window_seconds; past
    # this the address's invite-link requests answer 429 (app/web/limits.py).
    invite_token_failures_per_ip: int = 20
    # `limits` storage URI for the counters: empty = memory:// (one process), or redis://...;
    # with a Redis BROKER_URL and this empty, the broker's Redis is used so web processes share them.
    rate_limit_storage_url: str = ""
    attempts_per_user_per_minute: int = 10
    # Draft snapshots (playback, app/workspace/snapshots.py): one row per workspace per this many seconds
    # at most (a change within it updates that row); per user at most this many rows and bytes, the
    # oldest thinned first when either is passed (each draft keeps its first and last).
    draft_snapshot_interval_seconds: int = 15
    draft_snapshots_per_user: int = 400
    draft_snapshot_bytes_per_user: int = 16 * 1024 * 1024
    # Keystroke recording of interviews (app/interviews/live/recording.py): the editor's change sets, at
    # most this many bytes per interview and per user; a batch past either is refused whole (nothing
    # of it is written) and playback goes on from the draft snapshots.
    keystroke_bytes_per_interview: int = 4 * 1024 * 1024
    keystroke_bytes_per_user: int = 32 * 1024 * 1024
    # Where web processes tell each other about a live interview's new events (follow mode): a
    # redis:// URL; empty = the broker's Redis when BROKER_URL is one, else within this process only.
    live_redis_url: str = ""
    # How often a live stream checks, on its own, that its client may still follow (session, token, role,
    # the interview's end) and looks for events it was not woken for.
    live_check_seconds: float = Field(default=2.0, gt=0, le=60)
    worker_concurrency: int = 0  # 0 = one per CPU core
    heartbeat_seconds: float = 5.0
    stale_after_seconds: float = 60.0
    max_tries: int = 2
    # Per harness run; a grading takes a few seconds, so these only stop code that never finishes.
    grading_cpu_seconds: int = 60
    grading_wall_seconds: float = 90.0
    # Importing the candidate's files (work done at import time, a sleep) may take this long; the
    # judge then ends the run as a timeout, so one submission cannot hold a grading slot for the wall limit.
    grading_import_seconds: float = Field(default=15.0, gt=0, le=300)
    # The scratch console: quick experiments, so a few seconds of CPU and a small output cap.
    scratch_cpu_seconds: int = 10
    scratch_wall_seconds: float = 20.0
    scratch_output_kib: int = 64
    dojo_unsafe_subprocess: bool = False
    # Web front door (app/web/hosts.py, `dojo serve`).
    # The public address, e.g. https://dojo.example.com: links and redirects always use it.
    base_url: str = ""
    # Host headers accepted when BASE_URL is empty (comma-separated; "*" accepts any).
    allowed_hosts: str = "localhost,127.0.0.1,::1"
    # Addresses of reverse proxies whose X-Forwarded-For/-Proto are believed (comma-separated IPs or
    # CIDRs, "*" for any). Empty: forwarded headers are ignored and the peer address is the client.
    trusted_proxies: str = ""
    # Operations (app/ops/): JSON or text logs; /metrics also on this port when set (0 = off).
    log_format: str = "json"
    log_level: str = "INFO"
    metrics_port: int = 0
    # Queued attempts whose dispatch failed or was lost (broker down or restarted) are sent again
    # by the sweeper once their last send is older than this.
    redispatch_after_seconds: float = 60.0
    # Validate each built-in when `dojo serve` starts unless its report is stored (once per engine
    # version): its solution's run (the reference gradings need) first, the mutation matrix after it
    # in the background. The server answers meanwhile; /readyz says which references are missing.
    warm_references: bool = True
    # Where computed references are cached as files (empty: DOJO_DATA_DIR/cache/reference). Several
    # installs on one machine may share it: a file is named by the package's content hash and the
    # engine version, and written atomically.
    reference_cache_dir: str = ""
    # Interview invites by email (app/interviews/mail.py): smtp://user:pass@host:port,
    # smtp+starttls://... or smtps://...; empty: no email, the link is shown once to copy.
    smtp_url: str = ""
    smtp_from: str = "Transformer Debugging Dojo <no-reply@localhost>"
    # One reminder this many hours before an emailed, unused invite expires; checked this often by `dojo serve`.
    invite_reminder_hours: int = 24
    reminder_interval_seconds: int = 300
    # Coaching (app/coaching/llm.py): an optional OpenAI-compatible chat-completions endpoint that
    # writes the tips from the same evidence; empty URL = the rule coach only. The rules answer
    # whenever the model times out, fails or returns something invalid.
    coach_llm_url: str = ""
    coach_llm_model: str = ""
    coach_llm_api_key: str = ""
    coach_llm_timeout_seconds: float = 20.0
    # Warm single-use sandboxes: each grading worker keeps its next sandbox started with torch
    # imported; one waiting longer than this is replaced.
    warm_sandboxes: bool = True
    warm_sandbox_max_idle_seconds: float = 1800.0
    # Judges forked from one process per worker that imported torch once (app/sandbox/judge_server.py),
    # instead of each judge importing it: about 1.5 s less CPU a grading. Off: each judge is a new process.
    judge_fork_server: bool = True
    # Niceness of sandboxed candidate code (gradings, scratch and validation runs, warm standbys): batch
    # work that yields the CPU to the web process's requests. 0 to 19; never above the server's own priority.
    sandbox_nice: int = Field(default=10, ge=0, le=19)

    @property
    def is_production(self) -> bool:
        return self.dojo_env.lower() == "production"

    @property
    def secure_cookies(self) -> bool:
        return self.is_production if self.cookie_secure is None else self.cookie_secure

    def host_list(self) -> list[str]:
        return [host.strip().lower() for host in self.allowed_hosts.split(",") if host.strip()]

    def proxy_list(self) -> list[str]:
        return [proxy.strip() for proxy in self.trusted_proxies.split(",") if proxy.strip()]

    def limits_storage_uri(self) -> str:
        """Where login counters live: the explicit setting, the broker's Redis, or this process."""
        if self.rate_limit_storage_url:
            return self.rate_limit_storage_url
        if self.broker_url.startswith(("redis://", "rediss://")):
            return self.broker_url
        return "memory://"

    def live_pubsub_url(self) -> str:
        """The Redis that carries live interview events between web processes, or "" (one process)."""
        if self.live_redis_url:
            return self.live_redis_url
        return self.broker_url if self.broker_url.startswith(("redis://", "rediss://")) else ""

    @model_validator(mode="after")
    def _fill_defaults(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{(self.dojo_data_dir / 'dojo.sqlite3').resolve()}"
        self.base_url = self.base_url.strip().rstrip("/")
        scheme, _, host = self.base_url.partition("://")
        if self.base_url and (scheme not in ("http", "https") or not host or "/" in host):
            raise ValueError("BASE_URL must be a scheme and host only, like https://dojo.example.com")
        if self.is_production:
            self._check_production()
        return self

    def _check_production(self) -> None:
        """Refuse to start a production server with development shortcuts."""
        problem = secret_key_problem(self.secret_key)
        if problem:
            raise ValueError(f"SECRET_KEY {problem} when DOJO_ENV=production. Make one with: {MAKE_A_KEY}")
        if self.dojo_unsafe_subprocess:
            raise ValueError(
                "DOJO_UNSAFE_SUBPROCESS=1 runs candidate code without the sandbox; "
                "it is refused when DOJO_ENV=production"
            )

    def ensure_data_dir(self) -> Path:
        """Create the data directory on first run."""
        self.dojo_data_dir.mkdir(parents=True, exist_ok=True)
        return self.dojo_data_dir

    def effective_secret_key(self) -> str:
        """The configured key, or one generated once and kept in the data directory."""
        if self.secret_key:
            return self.secret_key
        key_file = self.ensure_data_dir() / "secret_key"
        if not key_file.exists():
            key_file.write_text(secrets.token_urlsafe(48))
            key_file.chmod(0o600)
        return key_file.read_text().strip()


def secret_key_problem(key: str) -> str | None:
    """Why a production SECRET_KEY is refused (too short, or guessable: repeated or dictionary-like)."""
    from app.core.strength import ESTIMATED_CHARS, estimate  # zxcvbn's dictionaries load only where a key is checked

    if len(key.strip()) < MIN_SECRET_KEY_CHARS:
        return f"must be a random value of at least {MIN_SECRET_KEY_CHARS} characters"
    guesses_log10 = estimate(key).guesses_log10
    per_char = guesses_log10 / min(len(key), ESTIMATED_CHARS)
    if guesses_log10 < MIN_SECRET_KEY_GUESSES_LOG10 or (
            per_char < MIN_SECRET_KEY_DIGITS_PER_CHAR and guesses_log10 < ENOUGH_SECRET_KEY_GUESSES_LOG10):
        return "looks guessable (repeated characters, words or a pattern) and must be random"
    return None


class LiveSettings(BaseSettings):
    """Settings read afresh at every use, never cached: ones a process changes for itself after start-up
    (`dojo bench` points DOJO_DATA_DIR at its own work directory before it grades) or a test changes
    within one process (the sandbox's bubblewrap, uid range and unsafe flag, the Celery queue).
    Reading them costs about a millisecond; each is read once per run, job or command. An empty
    variable means its default, as it always has for these."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", env_ignore_empty=True)

    # The data directory the harness bundles and reference files are cached in (Settings has the same).
    dojo_data_dir: Path = Path("./var")
    # The sandbox host (app/sandbox/host.py): bubblewrap's path (empty: found on PATH, else /usr/bin/bwrap);
    # the first of the dedicated uids sandboxed processes run as when the service runs as root (nothing
    # else may use the range); where the locks of those uids live.
    dojo_bwrap: str = ""
    dojo_sandbox_uid_base: int = 64000
    dojo_sandbox_state_dir: Path = Path("/run/dojo-sandbox")
    # Exactly "1" lets candidate code run in a plain subprocess where bubblewrap cannot (development only).
    dojo_unsafe_subprocess: str = ""
    # The Celery queue gradings go to (per deployment, and per test run so runs never share one).
    dojo_queue: str = ""
    # Where `dojo serve` listens by default, and the address `dojo` prints for signing in.
    dojo_host: str = "127.0.0.1"
    dojo_port: int = 8000

    @property
    def unsafe_subprocess(self) -> bool:
        return self.dojo_unsafe_subprocess.strip() == "1"


def live_settings() -> LiveSettings:
    """The settings that must follow the environment as it is now (see LiveSettings)."""
    return LiveSettings()


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings (tests clear the cache after changing the environment)."""
    return Settings()
