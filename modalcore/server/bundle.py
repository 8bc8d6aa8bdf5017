"""The modal's scripts as host pages receive them (issue 40 items 7, 8): compressed, cached by URL.

Two scripts, each served the same way: `loader.js`, the small file a host's `<script>` tag names
(the connect button at once; it fetches the rest later), and `modal.js`, the modal itself (React
inside), which the loader fetches by its hashed URL (the build writes that name into the loader,
so a loader never runs with another build's modal).

- `/static/<name>.<digest>.js` (12 hex of the file's SHA-256): `Cache-Control: immutable`, a
  year. A host that pins this URL never downloads the same bytes twice.
- `/static/<name>.js`, the stable URL every snippet uses: the same bytes, cached five minutes (a
  new engine release reaches pages within that), with an ETag for cheap revalidation.

Both answer brotli (the build's `<name>.js.br`), gzip (the build's `<name>.js.gz`, or made here
once) or plain, by the request's Accept-Encoding, with `Vary: Accept-Encoding`. The files are
read once and again only when the script changes on disk (a rebuild under `make run`).
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

NAME = "modal.js"
LOADER = "loader.js"
STABLE_MAX_AGE_S = 300
IMMUTABLE = "public, max-age=31536000, immutable"
ENCODINGS = ("br", "gzip")  # preferred first
SUFFIX = {"br": ".br", "gzip": ".gz"}


@dataclass(frozen=True)
class Bundle:
    name: str  # "modal.js", "loader.js"
    digest: str
    mtime_ns: int
    bodies: dict[str, bytes]  # "identity", and "br" / "gzip" where available

    @property
    def hashed_name(self) -> str:
        return f"{self.name.removesuffix('.js')}.{self.digest}.js"


def read_bundle(path: Path) -> Bundle | None:
    try:
        stat = path.stat()
        plain = path.read_bytes()
    except OSError:
        return None
    bodies = {"identity": plain}
    for encoding, suffix in SUFFIX.items():
        beside = path.with_name(path.name + suffix)
        try:
            if beside.stat().st_mtime_ns >= stat.st_mtime_ns:  # not left over from an older build
                bodies[encoding] = beside.read_bytes()
        except OSError:
            pass
    bodies.setdefault("gzip", gzip.compress(plain, compresslevel=9, mtime=0))
    return Bundle(path.name, hashlib.sha256(plain).hexdigest()[:12], stat.st_mtime_ns, bodies)


def chosen_encoding(accept: str, available: set[str]) -> str:
    """The best of `available` the client accepts (q > 0), brotli before gzip; else identity."""
    accepted: dict[str, float] = {}
    for part in accept.split(",")[:32]:
        name, _, params = part.strip().partition(";")
        quality = 1.0
        key, _, value = params.strip().partition("=")
        if key.strip() == "q":
            try:
                quality = float(value)
            except ValueError:
                quality = 0.0
        accepted[name.strip().lower()] = quality
    for encoding in ENCODINGS:
        if encoding in available and accepted.get(encoding, accepted.get("*", 0.0)) > 0:
            return encoding
    return "identity"


class BundleFiles:
    """The current build of one script of a static folder, re-read when the file changes."""

    def __init__(self, static_dir: Path, name: str = NAME) -> None:
        self.path = static_dir / name
        self._bundle: Bundle | None = None

    def current(self) -> Bundle | None:
        try:
            mtime = self.path.stat().st_mtime_ns
        except OSError:
            return None
        if self._bundle is None or self._bundle.mtime_ns != mtime:
            self._bundle = read_bundle(self.path)
        return self._bundle

    def respond(self, request: Request, cache_control: str, digest: str | None = None) -> Response:
        bundle = self.current()
        if bundle is None or (digest is not None and digest != bundle.digest):
            return PlainTextResponse("Not Found", status_code=404)
        encoding = chosen_encoding(request.headers.get("accept-encoding", ""), set(bundle.bodies))
        etag = f'"{bundle.digest}-{encoding}"'
        headers = {"Cache-Control": cache_control, "ETag": etag, "Vary": "Accept-Encoding"}
        if encoding != "identity":
            headers["Content-Encoding"] = encoding
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(bundle.bodies[encoding], media_type="text/javascript; charset=utf-8",
                        headers=headers)


def bundle_routes(files: BundleFiles) -> list[Route]:
    async def stable(request: Request) -> Response:
        return files.respond(request, f"public, max-age={STABLE_MAX_AGE_S}")

    async def hashed(request: Request) -> Response:
        return files.respond(request, IMMUTABLE, digest=request.path_params["digest"])

    name = files.path.name
    stem = name.removesuffix(".js")
    return [Route(f"/static/{name}", stable), Route(f"/static/{stem}.{{digest:str}}.js", hashed)]
