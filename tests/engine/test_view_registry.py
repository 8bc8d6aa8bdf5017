"""Every view the router can show has a view module, and an unknown view is an error (issue 12 item 8)."""

from __future__ import annotations

import pytest

from modalcore.enginetest import build_model
from modalcore.slices import router
from modalcore.slices.navigation import PressedNavigate, on_navigate
from modalcore.views import VIEW_MODULES, UnknownView, render


def test_the_router_views_are_exactly_the_view_modules() -> None:
    assert set(router.VIEWS) == set(VIEW_MODULES)
    assert len(router.VIEWS) == len(set(router.VIEWS))


@pytest.mark.parametrize("view", router.VIEWS)
def test_every_router_view_renders(view: str) -> None:
    model = build_model(history=[view], is_open=True)
    assert render(model).find(f"view/{view}") is not None


def test_an_unknown_view_is_an_error_not_connect() -> None:
    model = build_model(history=["ConnectingSiwe"], is_open=True)
    with pytest.raises(UnknownView):
        render(model)


def test_an_unknown_view_under_the_top_is_an_error_too() -> None:
    model = build_model(history=["NoSuchView", "Connect"], is_open=True)
    with pytest.raises(UnknownView):
        render(model)


def test_navigating_to_a_view_without_a_module_changes_nothing() -> None:
    model = build_model(history=["Account"], is_open=True)
    after, cmds = on_navigate(model, PressedNavigate("ConnectingSiwe"), 0)
    assert after is model and cmds == []
