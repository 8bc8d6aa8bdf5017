"""`modalcore db ...`: the shared PostgreSQL of `[database] url` (issue 42).

  db status  [--config FILE | --url URL]   the schema's version and this engine's
  db upgrade [--config FILE | --url URL]   apply the migrations the database lacks (engines
        refuse to start on an older schema; run it once per release, from any host)
  db copy [--from PATH] [--siwx-from PATH] [--names-from PATH] [--config FILE | --url URL]
        move one host's SQLite files (default: the config's `[embedded] db`, `[siwx] db`,
        `[names] db`, those that exist) into the database: upgraded, and empty of records

The URL comes from `--url`, else the config's `[database] url`, else MODALCORE_DATABASE_URL.
Errors are one line on stderr (`db: ...`, exit 2), never a password.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .durable.config import DatabaseSection, open_postgres
from .durable.config import section_of as database_section
from .durable.copy import copy_files
from .durable.db import DatabaseError
from .durable.schema import EMBEDDED_TABLES, NAMES_TABLES, SIWX_TABLES, VERSION, upgrade, version
from .embedded.setup import section_of as embedded_section
from .server.config import ConfigError, EngineConfig, default_config, load_config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    for name, text in (("status", "the database's schema version and this engine's"),
                       ("upgrade", "apply the schema migrations the database lacks"),
                       ("copy", "move one host's SQLite embedded.db into the database")):
        action = actions.add_parser(name, help=text)
        action.add_argument("--config", help="operator config (.toml or .json): its [database] url")
        action.add_argument("--url", help="postgresql://... (else the config's, else MODALCORE_DATABASE_URL)")
        if name == "copy":
            action.add_argument("--from", dest="source", metavar="PATH",
                                help="the embedded wallet's SQLite file (default: the config's [embedded] db)")
            action.add_argument("--siwx-from", dest="siwx", metavar="PATH",
                                help="the sign-in file (default: the config's [siwx] db)")
            action.add_argument("--names-from", dest="names", metavar="PATH",
                                help="the names file (default: the config's [names] db)")


def _section(args: argparse.Namespace, config: EngineConfig) -> DatabaseSection:
    section = database_section(config.model_extra)
    if args.url:
        section = section.model_copy(update={"url": DatabaseSection(url=args.url).url})
    if not section.effective_url():
        raise ConfigError("no database: give --url, a config with [database] url, or MODALCORE_DATABASE_URL")
    return section


def _sources(args: argparse.Namespace, config: EngineConfig) -> list[tuple[Path, tuple[str, ...]]]:
    """The files to copy and their tables: those named, else the config's that exist (the
    embedded wallet's must)."""
    extra = config.model_extra or {}

    def configured(section: str, default: str) -> Path:
        table = extra.get(section)
        return config.path(str(table.get("db", default) if isinstance(table, dict) else default))
    embedded = Path(args.source) if args.source else config.path(embedded_section(extra).db)
    siwx = Path(args.siwx) if args.siwx else configured("siwx", ".modalcore/siwx.db")
    names = Path(args.names) if args.names else configured("names", ".modalcore/names.db")
    found: list[tuple[Path, tuple[str, ...]]] = [(embedded, EMBEDDED_TABLES)]
    found += [(path, tables) for path, tables, named in ((siwx, SIWX_TABLES, args.siwx), (names, NAMES_TABLES, args.names))
              if named or path.is_file()]
    return found


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config) if args.config else default_config()
        section = _section(args, config)
        db = open_postgres(section, checked=False)
    except (ConfigError, DatabaseError, ValueError) as error:
        print(f"db: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    try:
        if args.action == "status":
            print(f"schema version {version(db)}, this engine needs {VERSION}")
        elif args.action == "upgrade":
            applied = upgrade(db)
            print(f"schema at version {VERSION}" + (f" (applied {', '.join(map(str, applied))})" if applied
                                                      else " (nothing to apply)"))
        else:
            copied = copy_files(_sources(args, config), db)
            print("copied " + ", ".join(f"{table} {count}" for table, count in copied.items()))
    except DatabaseError as error:
        print(f"db: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    finally:
        db.close()
    return 0
