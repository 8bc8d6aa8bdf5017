"""`GET /operator/support?project=P&code=C` (issue 44, the session doctor), behind the operator
token: the redacted recording a visitor's support code names (`modalcore/support.py`), as JSON
lines to save and open with `python -m modalcore inspect`. A malformed code answers 400, a code
of no recorded session of that project (another project's included) 404, both typed, nothing
changed and no traceback logged; without `serve --record-dir` nothing is recorded: 404."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..support import SupportRefusal, support_replay
from .operator import refuse_operator

STATUS = {"malformed_support_code": 400, "unknown_support_code": 404}


async def support_page(request: Request) -> Response:
    refused = refuse_operator(request)
    if refused is not None:
        return refused
    record_dir: Path | None = request.app.state.hub.record_dir
    project = request.query_params.get("project", "")
    code = request.query_params.get("code", "")
    if record_dir is None:
        found: list[str] | SupportRefusal = SupportRefusal("unknown_support_code")
    else:
        found = support_replay(record_dir, project, code)
    if isinstance(found, SupportRefusal):
        return JSONResponse({"error": found.reason}, status_code=STATUS[found.reason],
                            headers={"Cache-Control": "no-store"})
    name = code.strip().upper()
    return Response("\n".join(found) + "\n", media_type="application/x-ndjson", headers={
        "Cache-Control": "no-store",
        "Content-Disposition": f'attachment; filename="support-{name}.jsonl"'})


def routes() -> list[Route]:
    return [Route("/operator/support", support_page)]
