"""Debian's nginx (`make nginx`) in front of engines, run with the reverse-proxy config of
docs/operators/nginx.md (config/nginx.example.conf) for tests (issues 17, 42): in the
foreground on a free loopback port (never 80), its files in a folder of the test's, stopped when
the block ends."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from modalcore.netports import HOST, free_port

CONFIG = Path(__file__).resolve().parents[1] / "config" / "nginx.example.conf"
NGINX = "/usr/sbin/nginx"
START_TIMEOUT_S = 30.0
_LISTEN = "127.0.0.1:8080"
_ENGINES = ("127.0.0.1:8001", "127.0.0.1:8002")


def documented(port: int, engines: list[int], text: str | None = None) -> str:
    """The documented config (or `text`, a variant of it) listening on `port`, its upstream the
    `engines` (any number of them)."""
    text = text if text is not None else CONFIG.read_text()
    assert _LISTEN in text and all(e in text for e in _ENGINES)
    first = f"    server {_ENGINES[0]};\n"
    servers = "".join(f"    server {HOST}:{engine};\n" for engine in engines)
    text = text.replace(first, servers).replace(f"    server {_ENGINES[1]};\n", "")
    return text.replace(_LISTEN, f"{HOST}:{port}")


def _main_conf(folder: Path, snippet: str) -> Path:
    (folder / "modalcore.conf").write_text(snippet)
    temp = folder / "temp"
    temp.mkdir(mode=0o777, exist_ok=True)
    conf = folder / "nginx.conf"
    conf.write_text(f"""
daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {folder}/modalcore.conf;
}}
""")
    return conf


@contextlib.contextmanager
def run_nginx(folder: Path, snippet: str, port: int) -> Iterator[int]:
    """nginx with `snippet` inside its `http { }` block, ready once `port` answers `/healthz`
    with 200 (an engine behind it answered); yields `port`."""
    folder.mkdir(exist_ok=True)
    conf = _main_conf(folder, snippet)
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(folder)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                if httpx.get(f"http://{HOST}:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert nginx.poll() is None, (folder / "error.log").read_text()
            assert time.monotonic() < deadline, "nginx did not answer"
            time.sleep(0.1)
        yield port
    finally:
        nginx.terminate()
        nginx.wait(10)
        if nginx.stderr is not None:
            nginx.stderr.close()


@contextlib.contextmanager
def nginx_in_front(folder: Path, engines: list[int], text: str | None = None) -> Iterator[int]:
    """nginx on a free port with the documented config (or `text`) in front of `engines`."""
    port = free_port()
    with run_nginx(folder, documented(port, engines, text), port) as running:
        yield running
