"""Whether a PostgreSQL server named by a URL accepts connections at all: a TCP (or unix socket)
connect to each host the URL names, bounded in time. No PostgreSQL handshake: this only tells a
server that is gone (refused, or no answer within the bound) from one that may be back.

`endpoints(url)` is None when the URL does not say where the server is (libpq would take it from
the environment or a service file): then nothing is probed."""

from __future__ import annotations

import contextlib
import socket
from dataclasses import dataclass

import psycopg
from psycopg.conninfo import conninfo_to_dict

DEFAULT_PORT = "5432"


@dataclass(frozen=True)
class Endpoint:
    host: str  # a name, an address, or a unix socket's folder (starting with "/")
    port: int


def endpoints(url: str) -> tuple[Endpoint, ...] | None:
    try:
        info = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return None
    hosts = str(info.get("host") or "").split(",")
    ports = str(info.get("port") or "").split(",")
    if not all(hosts) or "service" in info:
        return None
    if len(ports) == 1:
        ports = ports * len(hosts)
    if len(ports) != len(hosts):
        return None
    try:
        return tuple(Endpoint(host, int(port or DEFAULT_PORT)) for host, port in zip(hosts, ports))
    except ValueError:
        return None


def answers(endpoint: Endpoint, timeout_s: float) -> bool:
    """True when a connection to `endpoint` is accepted within `timeout_s` (then closed)."""
    try:
        if endpoint.host.startswith("/"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
                unix.settimeout(timeout_s)
                unix.connect(f"{endpoint.host}/.s.PGSQL.{endpoint.port}")
        else:
            with contextlib.closing(socket.create_connection((endpoint.host, endpoint.port), timeout=timeout_s)):
                pass
    except OSError:
        return False
    return True


def any_answers(found: tuple[Endpoint, ...], timeout_s: float) -> bool:
    return any(answers(endpoint, timeout_s) for endpoint in found)
