"""Where the directory comes from: the curated file (default) or a hosted directory.

Operator config, section `[directory]` of the engine config (all optional):

    [directory]
    file = "my-wallets.json"   # the local directory (default: modalcore/data/wallets.json)
    images = ""                      # a folder of images named <image_id>.<svg|png|webp|jpg>
    api_url = ""                     # a hosted directory (behaviour.md §7) instead of the file
    project_id = ""                  # its project id (default: the session's project id)
    public_url = ""                  # where browsers reach this engine ("" = the page's origin)

The `directory` service (a `Call` target) answers the sessions' queries; the HTTP routes of
`routes.py` answer the same queries for anyone else.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import httpx
from pydantic import BaseModel, ConfigDict

from ...core.services import ServiceContext, ServiceTable, serve
from ...services.domain.handles import DIRECTORY
from ...services.domain.shapes import DirectoryArgs, DirectoryResult
from .hosted import HostedDirectory
from ..domain.query import Directory, Page, WalletQuery, load_directory

if TYPE_CHECKING:
    from ...server.config import EngineConfig


class DirectoryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    file: str = ""
    images: str = ""
    api_url: str = ""
    project_id: str = ""
    public_url: str = ""


class Source(Protocol):
    async def wallets(self, query: WalletQuery) -> Page: ...


class LocalDirectory:
    def __init__(self, directory: Directory) -> None:
        self.directory = directory

    async def wallets(self, query: WalletQuery) -> Page:
        return self.directory.query(query)


def directory_config(config: EngineConfig | None) -> DirectoryConfig:
    section = (config.model_extra or {}).get("directory") if config is not None else None
    return DirectoryConfig.model_validate(section or {})


def local_directory(config: EngineConfig | None) -> Directory:
    settings = directory_config(config)
    if config is not None and settings.file:
        return load_directory(str(config.path(settings.file)))
    return load_directory()


def images_dir(config: EngineConfig | None) -> Path | None:
    settings = directory_config(config)
    if not settings.images:
        return None
    return config.path(settings.images) if config is not None else Path(settings.images)


def source_for(config: EngineConfig | None, http: httpx.AsyncClient | None,
               project_id: str = "") -> Source:
    settings = directory_config(config)
    if settings.api_url:
        if http is None:
            raise RuntimeError("a hosted directory needs the engine's HTTP client")
        return HostedDirectory(http, settings.api_url, settings.project_id or project_id)
    return LocalDirectory(local_directory(config))


def public_url(config: EngineConfig | None) -> str:
    return directory_config(config).public_url.rstrip("/")


async def run_query(config: EngineConfig | None, http: httpx.AsyncClient | None, project_id: str,
                    args: Mapping[str, object]) -> DirectoryResult:
    """One `/getWallets` query for a session (args as WalletQuery's fields, with the platform
    facts of the session's join env); plain data out, as `CallSettled.result`."""
    query = WalletQuery.from_args(args)
    page = await source_for(config, http, project_id).wallets(query)
    return {
        "data": [wallet.to_json() for wallet in page.data],
        "count": page.count,
        "image_base": public_url(config),
    }


async def _directory(ctx: ServiceContext | None, args: DirectoryArgs) -> DirectoryResult:
    if ctx is None:
        return await run_query(None, None, "", args.model_dump())
    return await run_query(ctx.config, ctx.http, ctx.project_id, args.model_dump())


# The `directory` service as the runtime registers it (with the engine's config).
directory_service = serve(DIRECTORY, _directory)


def directory_services() -> ServiceTable:
    """Services to register on the runtime's registry (they take the ServiceContext)."""
    return {DIRECTORY: directory_service}
