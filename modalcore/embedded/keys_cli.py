"""`python -m modalcore keys ...`: operator commands for the embedded wallet's master key.

  keys generate-master-key           print a new random master key (hex) on stdout
  keys rotate-master-key --db PATH   re-wrap every data key (PATH: the SQLite file, or the shared
        database's postgresql:// URL): the current key comes from
        MODALCORE_MASTER_KEY / MODALCORE_MASTER_KEY_FILE (or --old-key-file), the new one from
        --new-key-file or MODALCORE_NEW_MASTER_KEY. Keys are never taken as arguments (they
        would show in the process list).
"""

from __future__ import annotations

import argparse
import os
import sys

from ..durable.config import DatabaseSection, open_postgres
from ..durable.db import DatabaseError
from .keys import KeyVaultError, rotate_master_key
from .masterkey import MasterKey, MasterKeyError, load_master_key

NEW_MASTER_KEY_ENV = "MODALCORE_NEW_MASTER_KEY"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("generate-master-key", help="print a new random master key (hex)")
    rotate = actions.add_parser("rotate-master-key",
                                help="re-wrap every embedded wallet's data key with a new key")
    rotate.add_argument("--db", required=True, metavar="PATH",
                        help="the embedded key database: a SQLite file or a postgresql:// URL")
    rotate.add_argument("--old-key-file", metavar="FILE",
                        help="the current master key (default: MODALCORE_MASTER_KEY[_FILE])")
    rotate.add_argument("--new-key-file", metavar="FILE",
                        help=f"the new master key (default: {NEW_MASTER_KEY_ENV})")


def _new_key(args: argparse.Namespace) -> MasterKey:
    if args.new_key_file:
        return MasterKey.read_file(args.new_key_file)
    if os.environ.get(NEW_MASTER_KEY_ENV):
        return MasterKey.parse(os.environ[NEW_MASTER_KEY_ENV])
    raise MasterKeyError(f"give --new-key-file or set {NEW_MASTER_KEY_ENV}")


def run(args: argparse.Namespace) -> int:
    try:
        if args.action == "generate-master-key":
            print(MasterKey.generate().hex())
            return 0
        old = MasterKey.read_file(args.old_key_file) if args.old_key_file else load_master_key()
        new = _new_key(args)
        if str(args.db).startswith(("postgresql://", "postgres://")):
            db = open_postgres(DatabaseSection(url=args.db))
            try:
                count = rotate_master_key(db, old, new)
            finally:
                db.close()
        else:
            count = rotate_master_key(args.db, old, new)
    except (MasterKeyError, KeyVaultError, DatabaseError) as error:
        print(f"keys: {error}", file=sys.stderr)
        return 2
    print(f"re-wrapped {count} data keys")
    return 0
