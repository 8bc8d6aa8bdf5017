"""The inspector's loopback server: the page, the renderer's stage bundle, the icon set's marks the
recorded trees draw (`/icons/…`, as the engine serves them), and a small JSON API
over the recordings of one folder (each inspected once, again when its file changes)."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..icons.routes import routes as icon_routes
from ..server.config import DEFAULT_STATIC_DIR
from .export import export_test
from .recording import Inspection, inspect_file

PAGE = Path(__file__).with_name("page.html")
BUILD_HINT = "The renderer is not built: run `make renderer` (or `cd renderer && node build.mjs`)."


class Library:
    """The recordings of a folder (`*.jsonl`, not recursive), inspected on demand."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._cache: dict[str, tuple[float, Inspection]] = {}

    def names(self) -> list[str]:
        return sorted(p.name for p in self.folder.glob("*.jsonl") if p.is_file())

    def get(self, name: str) -> Inspection | None:
        if name not in self.names():  # only files of the folder: no paths from the request
            return None
        path = self.folder / name
        stamp = path.stat().st_mtime
        cached = self._cache.get(name)
        if cached is None or cached[0] != stamp:
            cached = (stamp, inspect_file(path))
            self._cache[name] = cached
        return cached[1]


def _index_arg(request: Request, key: str, inspection: Inspection) -> int | None:
    text = request.query_params.get(key, request.path_params.get(key, ""))
    try:
        value = int(text)
    except (TypeError, ValueError):
        return None
    return value if 0 <= value < len(inspection.steps) else None


def create_inspector(folder: Path, export_dir: Path | None = None,
                     static_dir: Path = DEFAULT_STATIC_DIR) -> Starlette:
    library = Library(folder)
    exports = export_dir or folder

    def found(request: Request) -> Inspection | Response:
        inspection = library.get(request.path_params["name"])
        if inspection is None:
            return JSONResponse({"error": "no such recording"}, status_code=404)
        return inspection

    async def page(request: Request) -> Response:
        return HTMLResponse(PAGE.read_text(encoding="utf-8"))

    async def stage_js(request: Request) -> Response:
        bundle = static_dir / "inspect.js"
        if not bundle.is_file():
            return PlainTextResponse(BUILD_HINT, status_code=503)
        return FileResponse(bundle, media_type="text/javascript")

    async def recordings(request: Request) -> Response:
        listed = []
        for name in library.names():
            inspection = library.get(name)
            if inspection is not None:
                listed.append(inspection.listing())
        return JSONResponse({"folder": str(folder), "recordings": listed})

    async def timeline(request: Request) -> Response:
        inspection = found(request)
        if isinstance(inspection, Response):
            return inspection
        return JSONResponse({**inspection.listing(), "problem": inspection.problem,
                             "sequence": inspection.sequence, "failed": inspection.failed,
                             "failed_at": inspection.failed_at,
                             "steps": [s.summary() for s in inspection.steps]})

    async def step(request: Request) -> Response:
        inspection = found(request)
        if isinstance(inspection, Response):
            return inspection
        index = _index_arg(request, "index", inspection)
        if index is None:
            return JSONResponse({"error": "no such step"}, status_code=404)
        return JSONResponse(inspection.step_detail(index))

    async def diff(request: Request) -> Response:
        inspection = found(request)
        if isinstance(inspection, Response):
            return inspection
        a, b = _index_arg(request, "a", inspection), _index_arg(request, "b", inspection)
        if a is None or b is None:
            return JSONResponse({"error": "a and b are step numbers"}, status_code=400)
        return JSONResponse({"a": a, "b": b, "lines": inspection.model_diff(a, b)})

    async def export(request: Request) -> Response:
        inspection = found(request)
        if isinstance(inspection, Response):
            return inspection
        index = _index_arg(request, "step", inspection)
        if index is None:
            return JSONResponse({"error": "no such step"}, status_code=400)
        path = export_test(inspection, index, exports)
        return JSONResponse({"path": str(path)})

    return Starlette(routes=[
        Route("/", page),
        Route("/inspect.js", stage_js),
        Route("/api/recordings", recordings),
        Route("/api/recordings/{name:str}", timeline),
        Route("/api/recordings/{name:str}/steps/{index:str}", step),
        Route("/api/recordings/{name:str}/diff", diff),
        Route("/api/recordings/{name:str}/export", export, methods=["POST"]),
        *icon_routes(),  # the recorded trees' images (token, network, wallet marks) resolve here
    ])
