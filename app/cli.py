"""The `dojo` command line: serve, worker, migrate, create-user, scenarios validate, grade, check, bench."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, TypedDict

if TYPE_CHECKING:
    from app.core.settings import Settings


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.core.settings import get_settings

    settings = get_settings()
    if not settings.base_url and args.host not in ("0.0.0.0", "::") and args.host.lower() not in settings.host_list():
        # The address it was told to bind is one people will type: answer for it too.
        os.environ["ALLOWED_HOSTS"] = ",".join([*settings.host_list(), args.host])
        get_settings.cache_clear()
        settings = get_settings()
    settings.ensure_data_dir()
    print(f"Transformer Debugging Dojo on http://{args.host}:{args.port}/  (database: {_safe_url()})")
    uvicorn.run("app.main:create_app", factory=True, host=args.host, port=args.port, **uvicorn_options(settings))
    return 0


class UvicornOptions(TypedDict):
    """The keyword arguments `dojo serve` passes to uvicorn.run besides the app, host and port."""

    proxy_headers: bool
    forwarded_allow_ips: str  # comma-separated addresses or networks; "" trusts none
    log_config: None
    access_log: bool
    server_header: bool
    http: Literal["h11"]
    timeout_graceful_shutdown: int


def uvicorn_options(settings: Settings) -> UvicornOptions:
    """Proxy headers are believed only from TRUSTED_PROXIES (uvicorn's own default trusts loopback)."""
    proxies = settings.proxy_list()
    return {
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": ",".join(proxies) if proxies else "",
        "log_config": None,  # app.core.logs configures logging (JSON by default) for uvicorn too
        "access_log": False,  # app.ops.middleware logs each request by route template, never the path
        "server_header": False,
        # h11 refuses a request whose headers pass 16 KB; uvicorn's httptools parser (about 5 % more
        # requests a second here) sets no such limit, and `dojo serve` may face clients with no proxy.
        "http": "h11",
        # A follower's event stream (GET /api/interviews/{id}/live) stays open while the interview runs: on a
        # stop, requests get this long to finish, then open streams are cut (browsers reconnect elsewhere with
        # Last-Event-ID) instead of holding the process until it is killed.
        "timeout_graceful_shutdown": 5,
    }


def _safe_url() -> str:
    from sqlalchemy.engine import make_url

    from app.core.settings import get_settings

    return make_url(get_settings().database_url).render_as_string(hide_password=True)


def _migrate(_args: argparse.Namespace) -> int:
    from app.core.db import get_engine
    from app.core.migrate import upgrade_to_head

    upgrade_to_head(get_engine())
    print(f"Database at head: {_safe_url()}")
    return 0


def _create_user(args: argparse.Namespace) -> int:
    from app.core.db import get_engine, new_session
    from app.core.migrate import upgrade_to_head
    from app.users.service import UserError, create_user

    upgrade_to_head(get_engine())
    with new_session() as session:
        try:
            user = create_user(session=session, email=args.email, password=args.password, role=args.role)
        except UserError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        session.commit()
        print(f"Created {user.role} {user.email} (id {user.id})")
    return 0


def _first_admin(args: argparse.Namespace) -> int:
    from app.core.db import get_engine, new_session
    from app.core.migrate import upgrade_to_head
    from app.core.settings import get_settings
    from app.users.service import ensure_first_admin

    upgrade_to_head(get_engine())
    credentials_file = get_settings().ensure_data_dir() / "first-admin.txt"
    with new_session() as session:
        created = ensure_first_admin(session=session, email=args.email, credentials_file=credentials_file)
        session.commit()
    from app.core.settings import live_settings

    address = live_settings()
    url = f"http://{address.dojo_host}:{address.dojo_port}/"
    if created or credentials_file.exists():
        print(f"Sign in at {url} as the first admin; the email and password are in {credentials_file.resolve()}:")
        print("  " + credentials_file.read_text().strip().replace("\n", "\n  "))
    else:
        print(f"An admin already exists; sign in at {url} (create more users with `dojo create-user`).")
    return 0


def _worker(args: argparse.Namespace) -> int:
    from app.core.settings import get_settings

    if get_settings().metrics_port:
        from app.ops.metrics import prepare_multiprocess_dir

        prepare_multiprocess_dir()  # before prometheus-client is imported in this process or its pool
    from app.worker import main as worker_main  # the worker's entry point; importing it registers the tasks

    return worker_main([f"--concurrency={args.concurrency}", f"--loglevel={args.loglevel}"])


def _validate(args: argparse.Namespace) -> int:
    from app.grading.commands import validate_command

    return _needs_sandbox(lambda: validate_command(args.target, as_json=args.json, ship_builtins=args.ship))


def _import(args: argparse.Namespace) -> int:
    from app.scenarios.commands import import_command

    return _needs_sandbox(lambda: import_command(args.path, publish=args.publish,
                                                 without_per_bug_credit=args.without_per_bug_credit))


def _export(args: argparse.Namespace) -> int:
    from app.scenarios.commands import export_command

    return export_command(args.slug, number=args.version, target=args.output)


def _bench(args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.bench.command import BenchOptions, bench_command

    options = BenchOptions(scenario=args.scenario, llama_scenario=args.llama_scenario, repeats=args.repeats,
                           pipeline_count=args.submissions,
                           web_seconds=args.web_seconds,
                           data_dir=Path(args.data_dir).resolve() if args.data_dir else None,
                           watchers=args.watchers, watch_seconds=args.watch_seconds,
                           follow_seconds=args.follow_seconds)
    return _needs_sandbox(lambda: bench_command(as_json=args.json, options=options, only=args.only))


def _grade(args: argparse.Namespace) -> int:
    from app.grading.commands import grade_command

    return _needs_sandbox(lambda: grade_command(args.scenario, args.directory, as_json=args.json))


def _check(args: argparse.Namespace) -> int:
    from app.grading.check_dir import check_command

    return _needs_sandbox(lambda: check_command(args.directory, interface=args.interface, as_json=args.json))


def _needs_sandbox(command: Callable[[], int]) -> int:
    """Run a command that executes candidate code; a missing sandbox is a clear error, not a traceback."""
    from app.sandbox import SandboxUnavailableError

    try:
        return command()
    except SandboxUnavailableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dojo", description="Transformer Debugging Dojo")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the web app with local grading workers")
    from app.core.settings import live_settings

    address = live_settings()
    serve.add_argument("--host", default=address.dojo_host)
    serve.add_argument("--port", type=int, default=address.dojo_port)
    serve.set_defaults(func=_serve)

    worker = sub.add_parser("worker", help="run a Celery grading worker (needs BROKER_URL)")
    worker.add_argument("--concurrency", type=int, default=0, help="0 = one per CPU core")
    worker.add_argument("--loglevel", default="info")
    worker.set_defaults(func=_worker)

    migrate = sub.add_parser("migrate", help="bring the database schema to the newest revision")
    migrate.set_defaults(func=_migrate)

    create = sub.add_parser("create-user", help="add a user")
    create.add_argument("--email", required=True)
    create.add_argument("--password", required=True)
    create.add_argument("--role", required=True, choices=["candidate", "interviewer", "admin"])
    create.set_defaults(func=_create_user)

    first = sub.add_parser("first-admin", help="create the first admin with a random password if none exists")
    first.add_argument("--email", default="admin@dojo.local")
    first.set_defaults(func=_first_admin)

    scenarios = sub.add_parser("scenarios", help="scenario packages")
    scen_sub = scenarios.add_subparsers(dest="scenarios_command", required=True)
    validate = scen_sub.add_parser("validate", help="run the mutation matrix; exit 1 if invalid")
    validate.add_argument("target", nargs="?", help="slug of a built-in or path to a package (default: all)")
    validate.add_argument("--json", action="store_true")
    validate.add_argument("--ship", action="store_true",
                          help="write each valid built-in's report where the app ships it "
                               "(default: the built-ins whose shipped report is missing or stale)")
    validate.set_defaults(func=_validate)
    importer = scen_sub.add_parser("import", help="store a package directory or zip as a draft version")
    importer.add_argument("path")
    importer.add_argument("--publish", action="store_true", help="validate it now and publish it if valid")
    importer.add_argument("--without-per-bug-credit", action="store_true",
                          help="with --publish: publish even when bugs share all their detecting tests "
                               "(such bugs get no credit of their own while another remains)")
    importer.set_defaults(func=_import)
    exporter = scen_sub.add_parser("export", help="write a scenario version's package as a zip")
    exporter.add_argument("slug")
    exporter.add_argument("--version", type=int, default=None, help="version number (default: the newest)")
    exporter.add_argument("-o", "--output", required=True, help="the zip file to write")
    exporter.set_defaults(func=_export)

    grade = sub.add_parser("grade", help="grade a directory of candidate files in the sandbox")
    grade.add_argument("scenario", help="slug of a built-in or path to a package")
    grade.add_argument("directory")
    grade.add_argument("--json", action="store_true")
    grade.set_defaults(func=_grade)

    check = sub.add_parser("check", help="run every behavioural check of an interface on a directory of model "
                           "files in the sandbox (no scenario, no bugs); exit 1 if one fails")
    check.add_argument("directory", help="holds model.py (data.py and train.py when present)")
    check.add_argument("--interface", help="gpt-v1 or llama-v1 (default: picked from model.py's names)")
    check.add_argument("--json", action="store_true")
    check.set_defaults(func=_check)

    bench = sub.add_parser("bench", help="measure grading latency, throughput and web latency on this machine")
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--scenario", default="leaky-mask", help="built-in scenario whose solution is submitted")
    bench.add_argument("--llama-scenario", default="norm-and-gate", help="llama-v1 built-in whose grading is "
                       "timed beside a gpt-v1 one of the same model size")
    bench.add_argument("--repeats", type=int, default=3, help="timed runs of each harness run and grading "
                       "(their median is the figure)")
    bench.add_argument("--submissions", type=int, default=10, help="sequential submissions for the percentiles")
    bench.add_argument("--web-seconds", type=float, default=15.0, help="duration of the web load")
    bench.add_argument("--data-dir", help="keep the server's data here; a second run skips the first start")
    bench.add_argument("--only", choices=["watchers", "gradings", "follow", "fairness", "split"],
                       help="measure one figure alone "
                       "(watchers: pages polling their gradings, and the other requests' p95 meanwhile; gradings: a "
                       "gpt-v1 and a llama-v1 grading of the same model size, and `dojo check` on a model directory; "
                       "follow: keystroke to a following interviewer, embedded and with two processes and Redis, "
                       "and the other requests' p95 while 50 followed candidates type; fairness: another "
                       "user's short scratch run while one user's two gradings sleep at import, on two slots; "
                       "split: a grading with the judge outside the sandbox against the same grading with judge "
                       "and agent in one process)")
    bench.add_argument("--follow-seconds", type=float, default=30.0, help="typing time of each follow figure")
    bench.add_argument("--watchers", type=int, default=300, help="pages watching gradings at once")
    bench.add_argument("--watch-seconds", type=float, default=30.0, help="measured window of each polling mode")
    bench.set_defaults(func=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `dojo` console script."""
    args = build_parser().parse_args(argv)
    if args.command in ("serve", "worker"):
        from app.core import logs
        from app.core.settings import get_settings

        logs.configure(get_settings())
    else:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        logging.getLogger("alembic").setLevel(logging.WARNING)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
