"""The seam through which development rigs join an engine: the dev-chain proxy, the local onramp
provider and its page, the dev chains' swap markets come from `modalcore_dev` (the demo, the tests), never from the engine's own
package, so an installed engine carries none of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from starlette.routing import BaseRoute

from ..services.backend.onramp.provider import OnrampProvider
from ..services.backend.swap.uniswap_v2 import UniswapV2Market
from .config import ConfigError, EngineConfig


@dataclass(frozen=True)
class DevRigs:
    routes: Sequence[BaseRoute] = ()
    onramp: OnrampProvider | None = None
    swap_markets: Mapping[int, UniswapV2Market] = field(default_factory=dict)  # chain id -> local market


NO_RIGS = DevRigs()


def check_rigs(config: EngineConfig, rigs: DevRigs | None) -> DevRigs:
    """A config that turns a rig on without the rigs is refused: `modalcore serve` has none."""
    if rigs is None and config.devchain_proxy:
        raise ConfigError("devchain_proxy is a development rig: run it with `python -m modalcore_dev demo`")
    return rigs or NO_RIGS
