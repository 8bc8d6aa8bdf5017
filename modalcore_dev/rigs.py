"""The development rigs an engine app takes (`create_app(config, rigs=dev_rigs(config))`): the
dev-chain proxy when the config turns it on, and the local onramp provider with its page when it
also names the engine's public URL; the dev chains' swap markets always (none without the
deployment)."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from modalcore.server.config import EngineConfig
from modalcore.server.rigs import DevRigs

from .devproxy import devchain_proxy
from .onramp_page import local_onramp
from .onramp_page import routes as onramp_routes
from .swap_markets import dev_markets


def dev_rigs(config: EngineConfig) -> DevRigs:
    onramp = local_onramp(config)
    routes: list[BaseRoute] = []
    if config.devchain_proxy:
        routes.append(Route("/devchain/{chainId:str}", devchain_proxy, methods=["POST"]))
    if onramp is not None:
        routes += onramp_routes(onramp)
    return DevRigs(routes=tuple(routes), onramp=onramp, swap_markets=dev_markets())
