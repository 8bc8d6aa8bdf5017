"""What the onramp services ask of a provider that runs beside the engine (the dev chains' local
onramp, `modalcore_dev.onramp`, passed in by the demo and the tests): the engine only knows this
shape, so its wheel carries no dev rig."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class OnrampRefused(ValueError):
    """The provider cannot take or complete this order; `str(error)` is shown."""


class OnrampProvider(Protocol):
    @property
    def networks(self) -> Mapping[str, object]: ...  # the CAIP-2 networks it answers for

    def options(self, network: str) -> dict[str, object]: ...

    def quote(self, purchase_currency: str, payment_currency: str, amount: str, network: str) -> dict[str, str]: ...

    def order_url(self, address: str, network: str, purchase_currency: str, payment_currency: str,
                  amount: str) -> str: ...

    def purchases(self) -> frozenset[str]: ...  # transaction hashes of completed purchases
