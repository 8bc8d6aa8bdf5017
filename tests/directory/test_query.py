"""`/getWallets` semantics over the curated directory: filters, search, pages (behaviour.md §7, §9)."""

from __future__ import annotations

import json

import pytest

from modalcore.directory.domain.query import Directory, QueryError, WalletQuery, load_directory
from modalcore.directory.domain.wallets import DEFAULT_FILE, DirectoryError, Wallet, read_wallets

EVM = ("eip155:1",)
SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
BITCOIN = "bip122:000000000019d6689c085ae165831e93"


@pytest.fixture(scope="module")
def directory() -> Directory:
    return load_directory()


def test_the_curated_directory_has_over_100_real_wallets_with_the_spec_fields() -> None:
    raw = json.loads(DEFAULT_FILE.read_text())["wallets"]
    assert len(raw) >= 100
    fields = {"id", "name", "image_id", "rdns", "mobile_link", "desktop_link", "webapp_link", "chains"}
    assert all(set(entry) == fields for entry in raw)
    wallets = read_wallets(DEFAULT_FILE)
    assert len({w.id for w in wallets}) == len(wallets)
    rdns = [w.rdns for w in wallets if w.rdns]
    assert len(set(rdns)) == len(rdns)
    by_id = {w.id: w for w in wallets}
    assert by_id["metamask"].rdns == "io.metamask" and by_id["metamask"].mobile_link == "metamask://"
    assert by_id["rainbow"].rdns == "me.rainbow" and by_id["rainbow"].mobile_link == "rainbow://"
    assert by_id["coinbase"].rdns == "com.coinbase.wallet"
    for wallet in wallets:
        assert wallet.chains, wallet.id
        for chain in wallet.chains:
            namespace, _, reference = chain.partition(":")
            assert namespace in {"eip155", "solana", "bip122", "cosmos", "polkadot"} and reference


def test_a_directory_file_with_a_duplicate_id_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "w.json"
    path.write_text(json.dumps([{"id": "a", "name": "A"}, {"id": "a", "name": "B"}]))
    with pytest.raises(DirectoryError, match="appears twice"):
        read_wallets(path)


def test_pages_of_40_cover_the_filtered_list_once(directory: Directory) -> None:
    first = directory.query(WalletQuery(page=1, entries=40))
    assert first.count == len(directory) and len(first.data) == 40
    seen: list[str] = []
    page = 1
    while True:
        result = directory.query(WalletQuery(page=page, entries=40))
        if not result.data:
            break
        seen += [w.id for w in result.data]
        page += 1
    assert seen == [w.id for w in directory.wallets]
    assert page == 4  # 118 wallets: 40, 40, 38


def test_include_keeps_only_those_and_exclude_drops_them(directory: Directory) -> None:
    included = directory.query(WalletQuery(include=("rainbow", "metamask", "nope")))
    assert [w.id for w in included.data] == ["metamask", "rainbow"] and included.count == 2
    excluded = directory.query(WalletQuery(exclude=("metamask", "trust"), entries=3))
    assert [w.id for w in excluded.data] == ["coinbase", "rainbow", "okx"]
    assert excluded.count == len(directory) - 2


def test_chains_filter_by_caip2_and_evm_wallets_serve_any_evm_chain(directory: Directory) -> None:
    bitcoin = directory.query(WalletQuery(chains=(BITCOIN,), entries=100))
    assert all(BITCOIN in w.chains for w in bitcoin.data) and "xverse" in {w.id for w in bitcoin.data}
    assert "metamask" not in {w.id for w in bitcoin.data}
    dev = directory.query(WalletQuery(chains=("eip155:31337",), entries=100))
    assert "metamask" in {w.id for w in dev.data} and "xverse" not in {w.id for w in dev.data}
    both = directory.query(WalletQuery(chains=(SOLANA, BITCOIN), entries=100))
    assert {"phantom", "solflare", "xverse"} <= {w.id for w in both.data}


def test_search_ranks_exact_then_prefix_then_word_then_anywhere(directory: Directory) -> None:
    assert [w.name for w in directory.query(WalletQuery(search="rain")).data] == ["Rainbow"]
    assert [w.name for w in directory.query(WalletQuery(search="  RAIN ")).data] == ["Rainbow"]
    names = [w.name for w in directory.query(WalletQuery(search="wallet", entries=100)).data]
    assert names.index("Trust Wallet") < names.index("Safe{Wallet}")  # a word starts vs. after "{"
    core = [w.name for w in directory.query(WalletQuery(search="core", entries=100)).data]
    assert core[0] == "Core"
    meta = [w.name for w in directory.query(WalletQuery(search="meta", entries=100)).data]
    assert meta[0] == "MetaMask"


def test_search_counts_matches_and_respects_the_filters(directory: Directory) -> None:
    result = directory.query(WalletQuery(search="wallet", exclude=("trust",), entries=5))
    assert "trust" not in {w.id for w in result.data}
    assert result.count > 5 and len(result.data) == 5
    assert directory.query(WalletQuery(search="zzzz")).count == 0


def test_badge_certified_finds_nothing_in_the_curated_directory(directory: Directory) -> None:
    assert directory.query(WalletQuery(badge_type="certified")).count == 0
    assert directory.query(WalletQuery(badge_type="none")).count == len(directory)


def test_platform_rules_filter_before_paging(directory: Directory) -> None:
    mobile = directory.query(WalletQuery(mobile=True, entries=100))
    ids = {w.id for w in mobile.data}
    assert all(w.mobile_link or w.id in {"coinbase", "phantom"} for w in mobile.data)
    assert {"coinbase", "phantom", "metamask"} <= ids and "rabby" not in ids
    assert mobile.count == len(mobile.data)
    universal = directory.query(WalletQuery(universal=True, entries=100))
    assert all(w.has_link for w in universal.data) and universal.count < len(directory)
    assert "safe" in {w.id for w in universal.data} and "coinbase" not in {w.id for w in universal.data}


@pytest.mark.parametrize("args", [
    {"page": 0}, {"entries": 0}, {"entries": 101}, {"page": "x"}, {"include": 5},
])
def test_bad_parameters_are_refused(args: dict[str, object]) -> None:
    with pytest.raises(QueryError):
        WalletQuery.from_args(args)


def test_query_parameters_parse_comma_lists() -> None:
    query = WalletQuery.from_params({"page": "2", "entries": "10", "include": "a, b,,a", "chains": "eip155:1",
                                     "search": "x", "badge_type": ""})
    assert query == WalletQuery(page=2, entries=10, include=("a", "b"), chains=("eip155:1",), search="x")


def test_search_over_a_large_directory_finds_the_match_and_counts_all() -> None:
    """Correctness at size; its speed is a `make bench` figure, not a test assertion."""
    big = Directory(tuple(Wallet(id=f"w{i}", name=f"Wallet number {i} of the test", chains=("eip155:1",))
                          for i in range(20_000)))
    query = WalletQuery(search="number 1234", entries=100, chains=EVM)
    first = big.query(query)  # builds the filter cache
    result = big.query(query)  # served from it
    assert result == first
    assert [w.id for w in result.data][:1] == ["w1234"] and result.count == 11
