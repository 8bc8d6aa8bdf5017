"""Command line (`modalcore` or `python -m modalcore`): `serve ...`, `replay PATH...`, `audit verify`,
`analytics prune`, `inspect DIR`, `doctor replay CODE`, `i18n extract|check`, `keys rotate-master-key`,
`db status|upgrade|copy` and `--version`.
The demo is `python -m modalcore_dev demo`."""

from __future__ import annotations

import argparse
import importlib.metadata
import logging
import logging.config
import os
import sys
from collections.abc import Sequence

import uvicorn

from . import __version__
from .ops.analytics import add_arguments as analytics_arguments
from .ops.analytics import run as run_analytics
from .ops.audit import add_arguments as audit_arguments
from .ops.audit import run as run_audit
from .db_cli import add_arguments as db_arguments
from .db_cli import run as run_db
from .durable.config import open_postgres
from .durable.config import section_of as database_section
from .durable.db import DatabaseError
from .embedded.keys_cli import add_arguments as keys_arguments
from .embedded.keys_cli import run as run_keys
from .i18n.cli import add_arguments as i18n_arguments
from .i18n.cli import run as run_i18n
from .inspect.cli import add_arguments as inspect_arguments
from .inspect.cli import run as run_inspect
from .inspect.support_cli import add_arguments as doctor_arguments
from .inspect.support_cli import run as run_doctor
from .replay.cli import add_arguments
from .replay.cli import run as run_replay
from .server.app import create_app, uvicorn_options
from .server.logs import LOG_FORMATS, log_config
from .server.metrics_share import METRICS_DIR_ENV, shared_metrics_dir
from .server.config import ConfigError, EngineConfig, default_config, load_config
from .server.workers import CONFIG_ENV
from .server.workers import check as check_workers
from .server.workers import settle_process

RECORD_DIR_HELP = "record every new session to DIR/<session>.jsonl (tokens become placeholders)"
RECORD_NAME_HELP = "a name written in the header of each recording (e.g. what you are testing)"


def _serve(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config) if args.config else default_config()
    except ConfigError as error:
        print(f"config: {error}", file=sys.stderr)
        return 2
    try:
        _check_database(config)
    except (DatabaseError, ValueError) as error:  # one line: unreachable, or a schema to upgrade
        print(f"database: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    logs = log_config(args.log_format)
    logging.config.dictConfig(logs)  # this process's own lines (uvicorn applies it again in workers)
    if args.workers > 1:
        if args.record_dir:
            print("--record-dir records one process's sessions: use it with --workers 1",
                  file=sys.stderr)
            return 2
        try:
            check_workers(config, args.workers)
        except ConfigError as error:
            print(f"config: {error}", file=sys.stderr)
            return 2
        if args.config:
            os.environ[CONFIG_ENV] = os.path.abspath(args.config)
        with shared_metrics_dir() as metrics_dir:
            os.environ[METRICS_DIR_ENV] = str(metrics_dir)
            uvicorn.run("modalcore.server.workers:app", factory=True, workers=args.workers,
                        host=args.host, port=args.port, log_level=args.log_level, log_config=logs,
                        **uvicorn_options())
        return 0
    try:
        app = create_app(config, record_dir=args.record_dir, record_name=args.record_name)
    except ConfigError as error:  # e.g. a dev rig turned on, or Redis without its extra
        print(f"config: {error}", file=sys.stderr)
        return 2
    settle_process()
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, log_config=logs,
                **uvicorn_options())
    return 0


def _check_database(config: EngineConfig) -> None:
    """With `[database] url`: the database answers and its schema is this engine's (before any
    worker starts), else DatabaseError (SchemaBehind: run `modalcore db upgrade`)."""
    section = database_section(config.model_extra)
    if section.effective_url():
        open_postgres(section).close()


def _replay(args: argparse.Namespace) -> int:
    try:
        return run_replay(args)
    except BrokenPipeError:  # piped into `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _audit(args: argparse.Namespace) -> int:
    return run_audit(args)


def _keys(args: argparse.Namespace) -> int:
    return run_keys(args)


def _inspect(args: argparse.Namespace) -> int:
    return run_inspect(args)


def version() -> str:
    """The installed distribution's version; the package's own constant when it is not installed
    (a checkout on the import path)."""
    try:
        return importlib.metadata.version("modalcore")
    except importlib.metadata.PackageNotFoundError:
        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="modalcore")
    parser.add_argument("--version", action="version", version=f"modalcore {version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the session engine")
    serve.add_argument("--config", help="operator config (.toml or .json)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8700)
    serve.add_argument("--record-dir", metavar="DIR", help=RECORD_DIR_HELP)
    serve.add_argument("--record-name", metavar="NAME", help=RECORD_NAME_HELP)
    serve.add_argument("--log-level", default="info")
    serve.add_argument("--log-format", choices=LOG_FORMATS, default="text",
                       help="text: 'time pid level logger message'; json: one object a line")
    serve.add_argument("--workers", type=int, default=1,
                       help="worker processes on the port (more than 1 needs the redis store)")
    serve.set_defaults(run=_serve)

    replay = commands.add_parser(
        "replay", help="re-run recordings and hand-written sequences, and compare what they show")
    add_arguments(replay)
    replay.set_defaults(run=_replay)

    audit = commands.add_parser("audit", help="check the audit log's hash chains")
    audit_arguments(audit)
    audit.set_defaults(run=_audit)

    analytics = commands.add_parser("analytics", help="locally kept analytics events: prune past the retention")
    analytics_arguments(analytics)
    analytics.set_defaults(run=run_analytics)

    inspect = commands.add_parser(
        "inspect", help="a loopback page to step through recordings and their divergences")
    inspect_arguments(inspect)
    inspect.set_defaults(run=_inspect)

    doctor = commands.add_parser("doctor", help="the session doctor: a support code into a redacted replay")
    doctor_arguments(doctor)
    doctor.set_defaults(run=run_doctor)

    i18n = commands.add_parser("i18n", help="message catalogues: extract new strings, list untranslated ones")
    i18n_arguments(i18n)
    i18n.set_defaults(run=run_i18n)

    keys = commands.add_parser("keys", help="embedded wallet master key: generate, rotate")
    keys_arguments(keys)
    keys.set_defaults(run=_keys)

    db = commands.add_parser("db", help="the shared PostgreSQL of [database] url: status, upgrade, copy")
    db_arguments(db)
    db.set_defaults(run=run_db)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
