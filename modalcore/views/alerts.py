"""The alerts drawn above the view (slices/alerts.py): 'Invalid App Configuration' when the
hosted analytics API refused this origin (behaviour.md §8)."""

from __future__ import annotations

from ..rules import texts
from ..slices.alerts import PressedDismissAlert
from ..slices.model import Model
from ..wire.nodes import Node, node


def drawn(model: Model) -> list[Node]:
    if model.alert.kind != "invalid_app_configuration":
        return []
    return [node(
        "alert", "alert/app-config", on={"close": PressedDismissAlert()},
        title=texts.INVALID_APP_CONFIGURATION,
        message=f"The origin {model.origin} is not on this project's allowlist: "
                "update the configuration in the cloud dashboard.",
        variant="error",
    )]
