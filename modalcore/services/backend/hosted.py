"""What every client of a hosted API shares (behaviour.md §7): the base URL, and projectId, st and sv
on every request, with empty parameters skipped (the shared HTTP client's rule)."""

from __future__ import annotations


import httpx
from ...rules import texts

SDK_TYPE = texts.SDK_TYPE  # behaviour.md §9 default sdk type string
SDK_VERSION = "4"


class HostedApi:
    def __init__(self, http: httpx.AsyncClient, base_url: str, project_id: str,
                 st: str = SDK_TYPE, sv: str = SDK_VERSION) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.project_id = project_id
        self.st = st
        self.sv = sv

    def _params(self, extra: dict[str, object]) -> dict[str, str]:
        params = {"projectId": self.project_id, "st": self.st, "sv": self.sv}
        for key, value in extra.items():
            if value is None or value == "" or value == ():
                continue
            params[key] = ",".join(value) if isinstance(value, (list, tuple)) else str(value)
        return params
