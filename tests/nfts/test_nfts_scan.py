"""The ownership replay of the `nfts` service, on hand-made logs (no node)."""

from __future__ import annotations

from typing import Any

from modalcore.services.backend.history import TRANSFER_TOPIC
from modalcore.services.backend.nfts import address_topic, holdings

ME = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
YOU = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
ZERO = "0x" + "00" * 20
NFT = "0x9a676e781a523b5d0c0e43731313a708cb607508"
TOKEN = "0x5fbdb2315678afecb367f032d93f642f64180aa3"


def log(block: int, sender: str, receiver: str, token_id: int | None, *, contract: str = NFT,
        index: int = 0, tx: str | None = None) -> dict[str, Any]:
    topics = [TRANSFER_TOPIC, address_topic(sender), address_topic(receiver)]
    data = "0x" + "00" * 31 + "01"
    if token_id is not None:
        topics.append("0x" + format(token_id, "064x"))
        data = "0x"
    return {"address": contract, "topics": topics, "data": data, "blockNumber": hex(block),
            "transactionIndex": "0x0", "logIndex": hex(index), "transactionHash": tx or f"0x{block:064x}",
            "removed": False}


def test_received_minus_sent_by_contract_and_token_id() -> None:
    logs = [log(1, ZERO, ME, 0), log(2, ZERO, ME, 1), log(3, ME, YOU, 0), log(4, YOU, ME, 7, contract=TOKEN)]
    assert holdings(logs, ME) == [(TOKEN, 7), (NFT, 1)]  # sorted by contract
    assert holdings(logs, YOU) == [(NFT, 0)]  # (what YOU's own scan would see, given these logs)


def test_order_of_the_answers_does_not_matter() -> None:
    logs = [log(5, ME, YOU, 3), log(2, ZERO, ME, 3), log(9, YOU, ME, 3)]
    assert holdings(logs, ME) == [(NFT, 3)]
    assert holdings(logs[:2], ME) == []


def test_erc20_transfers_with_three_topics_are_ignored() -> None:
    assert holdings([log(1, YOU, ME, None, contract=TOKEN)], ME) == []


def test_a_transfer_to_oneself_keeps_the_token_even_when_seen_twice() -> None:
    mint, self_transfer = log(1, ZERO, ME, 4), log(2, ME, ME, 4)
    assert holdings([mint, self_transfer, self_transfer], ME) == [(NFT, 4)]


def test_a_burn_and_removed_logs() -> None:
    removed = {**log(3, ZERO, ME, 6), "removed": True}
    assert holdings([log(1, ZERO, ME, 5), log(2, ME, ZERO, 5), removed], ME) == []


def test_two_transfers_in_one_block_follow_the_log_index() -> None:
    logs = [log(4, YOU, ME, 2, index=1, tx="0xaa"), log(4, ME, YOU, 2, index=2, tx="0xaa")]
    assert holdings(logs, ME) == []
    assert holdings(list(reversed(logs)), ME) == []
