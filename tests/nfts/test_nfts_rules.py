"""The Account view's NFTs tab, sans IO: the fetch on selecting the tab, skeletons, tiles, the
empty state, a failure, the 30 s cache, answers for another account, a network switch."""

from __future__ import annotations

import base64
from typing import Any

from modalcore.enginetest import Harness
from modalcore.slices.model import model_from_data, model_to_data
from modalcore.slices import nfts
from modalcore.slices.nfts import Nft
from modalcore.views.nfts_tab import MAX_TILES, image_uri, placeholder_svg

from .conftest import ADDRESS

COLLECTION = "0x9A676e781A523b5d0C0e43731313A708CB607508"
CAIP = f"eip155:31337:{ADDRESS}"


def item(token_id: int, contract: str = COLLECTION, name: str = "Demo Collectibles",
         symbol: str = "DCOL") -> dict[str, Any]:
    return {"contract": contract, "token_id": str(token_id), "name": name, "symbol": symbol}


def open_tab(driver: Harness) -> None:
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18), "tokens": {}})
    driver.intent("host", "open")
    driver.intent("account/tabs", "select", {"value": "1"})


def answer(driver: Harness, items: list[dict[str, Any]]) -> None:
    driver.settle(driver.calls("nfts")[-1], {"block": 20, "items": items})


def tiles(driver: Harness) -> list[str]:
    box = driver.node("account/nfts")
    return [n.id.removeprefix("account/nfts/item/") for n in box.c if n.t == "stack"]


def test_selecting_the_nfts_tab_starts_the_fetch(driver: Harness) -> None:
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18), "tokens": {}})
    driver.intent("host", "open")
    assert driver.calls("nfts") == []  # the Tokens tab shows first: nothing asked yet
    driver.intent("account/tabs", "select", {"value": "1"})
    (call,) = driver.calls("nfts")
    assert call.args_data == {"rpc_url": "http://127.0.0.1:8545", "address": ADDRESS}
    assert call.key == f"{CAIP}"
    assert driver.model.nfts.loading is True
    assert driver.model.nfts.fetched_for == CAIP


def test_other_tabs_do_not_fetch_nfts(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "open")
    driver.intent("account/tabs", "select", {"value": "2"})
    driver.intent("account/tabs", "select", {"value": "0"})
    assert driver.calls("nfts") == []


def test_skeletons_while_loading(driver: Harness) -> None:
    open_tab(driver)
    box = driver.node("account/nfts")
    assert [n.t for n in box.c] == ["skeleton"] * 3
    assert "No NFTs found on this network" not in driver.texts()


def test_items_are_drawn_as_a_wrapping_grid_of_tiles(driver: Harness) -> None:
    open_tab(driver)
    answer(driver, [item(0), item(1), item(2)])
    box = driver.node("account/nfts")
    assert box.p["dir"] == "row" and box.p["wrap"] is True
    key = COLLECTION.lower()
    assert tiles(driver) == [f"{key}/0", f"{key}/1", f"{key}/2"]
    assert driver.node(f"account/nfts/item/{key}/1/text").p["text"] == "DCOL #1"
    image = driver.node(f"account/nfts/item/{key}/1/image")
    assert image.t == "image" and image.p["size"] == 96 and image.p["alt"] == "Demo Collectibles #1"
    prefix = "data:image/svg+xml;base64,"
    assert image.p["src"].startswith(prefix)
    svg = base64.b64decode(image.p["src"].removeprefix(prefix)).decode()
    # a token without an image of its own: a picture placeholder, no text repeating the label
    assert svg.startswith("<svg") and "<text" not in svg and "<path" in svg
    assert "example.invalid" not in svg  # a token URI naming a server is not fetched
    assert driver.model.nfts.items[1] == Nft(COLLECTION, "1", "Demo Collectibles", "DCOL")
    assert driver.model.nfts.loading is False


def test_a_token_with_an_image_of_its_own_draws_it(driver: Harness) -> None:
    """Issue 28 item 6: the image the token URI gives (the service reads on-chain metadata) is
    drawn; one the session may not keep (not https, too large) draws the placeholder."""
    open_tab(driver)
    answer(driver, [{**item(0), "image": "https://nft.example/0.png"},
                    {**item(1), "image": "javascript:alert(1)"},
                    {**item(2), "image": "data:image/svg+xml;base64," + "A" * 20_000}])
    key = COLLECTION.lower()
    assert driver.node(f"account/nfts/item/{key}/0/image").p["src"] == "https://nft.example/0.png"
    for token in (1, 2):
        assert driver.node(f"account/nfts/item/{key}/{token}/image").p["src"] == image_uri(
            Nft(COLLECTION, str(token), "Demo Collectibles", "DCOL"))


def test_placeholders_differ_per_token_and_are_deterministic() -> None:
    a, b = Nft(COLLECTION, "1", "Demo Collectibles", "DCOL"), Nft(COLLECTION, "2", "Demo Collectibles", "DCOL")
    assert placeholder_svg(a) != placeholder_svg(b)
    assert image_uri(a) == image_uri(Nft(COLLECTION, "1", "Demo Collectibles", "DCOL"))
    assert len(image_uri(a)) < 1200


def test_a_long_token_id_is_shortened_on_the_tile(driver: Harness) -> None:
    open_tab(driver)
    big = 2**255 + 7
    answer(driver, [item(big)])
    (key,) = tiles(driver)
    assert key == f"{COLLECTION.lower()}/{big}"
    text = driver.node(f"account/nfts/item/{key}/text").p["text"]
    assert text == f"DCOL #{str(big)[:4]}…{str(big)[-3:]}"


def test_many_items_are_capped_with_a_count(driver: Harness) -> None:
    open_tab(driver)
    answer(driver, [item(i) for i in range(MAX_TILES + 5)])
    assert len(tiles(driver)) == MAX_TILES
    assert driver.node("account/nfts/more").p["text"] == "+5 more"


def test_no_nfts_is_the_empty_state(driver: Harness) -> None:
    open_tab(driver)
    answer(driver, [])
    assert driver.node("account/nfts/text").p["text"] == "No NFTs yet"
    assert tiles(driver) == []
    assert driver.model.snack.open is False


def test_a_failure_shows_the_snack_and_an_empty_state(driver: Harness) -> None:
    open_tab(driver)
    driver.settle(driver.calls("nfts")[-1], ok=False, error="connection refused")
    assert driver.model.snack.message == "Failed to fetch NFTs"
    assert driver.model.snack.variant == "error"
    assert driver.model.nfts.loading is False and driver.model.nfts.items == ()
    assert driver.node("account/nfts/text").p["text"] == "Couldn't load NFTs"
    assert [n.t for n in driver.node("account/nfts").c] == ["icon", "text"]


def test_a_malformed_answer_is_a_failure(driver: Harness) -> None:
    open_tab(driver)
    driver.settle(driver.calls("nfts")[-1], {"items": [{"contract": COLLECTION, "token_id": "x"}]})
    assert driver.model.snack.message == "Failed to fetch NFTs"
    assert driver.model.nfts.items == ()


def test_a_failure_is_not_cached_selecting_the_tab_again_retries(driver: Harness) -> None:
    open_tab(driver)
    driver.settle(driver.calls("nfts")[-1], ok=False, error="boom")
    driver.intent("account/tabs", "select", {"value": "0"})
    driver.intent("account/tabs", "select", {"value": "1"})
    assert len(driver.calls("nfts")) == 2
    answer(driver, [item(4)])
    assert tiles(driver) == [f"{COLLECTION.lower()}/4"]


def test_a_result_is_cached_for_30_seconds(driver: Harness) -> None:
    open_tab(driver)
    answer(driver, [item(0)])
    driver.advance(29_000)
    driver.intent("account/tabs", "select", {"value": "0"})
    driver.intent("account/tabs", "select", {"value": "1"})
    assert len(driver.calls("nfts")) == 1
    assert tiles(driver) == [f"{COLLECTION.lower()}/0"]
    driver.advance(1_000)
    driver.intent("account/tabs", "select", {"value": "0"})
    driver.intent("account/tabs", "select", {"value": "1"})
    assert len(driver.calls("nfts")) == 2
    # refreshing keeps the items on screen (no skeletons), then shows the new answer
    assert tiles(driver) == [f"{COLLECTION.lower()}/0"]
    answer(driver, [item(0), item(3)])
    assert tiles(driver) == [f"{COLLECTION.lower()}/0", f"{COLLECTION.lower()}/3"]


def test_selecting_the_tab_while_the_scan_runs_does_not_ask_twice(driver: Harness) -> None:
    open_tab(driver)
    driver.intent("account/tabs", "select", {"value": "0"})
    driver.intent("account/tabs", "select", {"value": "1"})
    assert len(driver.calls("nfts")) == 1


def test_a_switch_of_network_on_the_tab_fetches_for_the_new_chain(driver: Harness) -> None:
    open_tab(driver)
    answer(driver, [item(0)])
    first = driver.calls("nfts")[-1]
    driver.intent("host", "switch_network", {"network": "eip155:31338"})
    driver.answer_last(None)
    call = driver.calls("nfts")[-1]
    assert call is not first
    assert call.args_data == {"rpc_url": "http://127.0.0.1:8546", "address": ADDRESS}
    assert call.key == f"eip155:31338:{ADDRESS}"
    assert [n.t for n in driver.node("account/nfts").c] == ["skeleton"] * 3  # 31337's items are not shown
    driver.settle(first, {"block": 1, "items": [item(9)]})  # a late answer for the old chain
    assert driver.model.nfts.loading is True and driver.model.nfts.items == ()
    answer(driver, [])
    assert driver.node("account/nfts/text").p["text"] == "No NFTs yet"


def test_a_lost_call_is_asked_again_after_its_time(driver: Harness) -> None:
    open_tab(driver)
    driver.advance(nfts.IN_FLIGHT_MS)
    driver.intent("account/tabs", "select", {"value": "0"})
    driver.intent("account/tabs", "select", {"value": "1"})
    assert len(driver.calls("nfts")) == 2


def test_the_nfts_state_survives_persistence(driver: Harness) -> None:
    open_tab(driver)
    answer(driver, [item(0), item(2**200)])
    again = model_from_data(model_to_data(driver.model))
    assert again.nfts == driver.model.nfts
