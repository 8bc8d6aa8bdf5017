"""Issue 17: a live session's save refers to the wallet directory's lists by content hash
(format 3), and the store keeps each list once. Rules: the bytes load back to the same model
with the blobs, the same directory page is the same blob in every session, a save of an
unchanged directory neither dumps nor hashes it again, and a blob gone from the store makes its
list "not loaded", fetched again when in sight, instead of failing the session."""

from __future__ import annotations

import msgpack
import pytest

from modalcore.engine.persist import (
    BlobsNeeded,
    ModelPacker,
    PendingTimer,
    blob_refs,
    load_bytes,
    session_to_bytes,
    session_to_save,
)
from modalcore.engine import shared
from modalcore.engine.shared import CHUNK, digest_of
from modalcore.slices.directory_search import SEARCH_TIMER, WalletSearchDue

from .conftest import DirHarness, all_wallets


def _page_blob(blobs: dict[str, bytes]) -> str:
    return next(d for d, b in blobs.items() if len(msgpack.unpackb(b)) == CHUNK)


def test_rule_a_save_refers_to_the_directory_lists_and_loads_back_the_same() -> None:
    h = all_wallets()
    h.type("rai")  # search results stay inline: typing must not make shared data
    timers = [PendingTimer(SEARCH_TIMER, 300, WalletSearchDue("rai"))]
    saved = session_to_save(h.session, timers, ModelPacker(shared=True))
    whole = session_to_bytes(h.session, timers)
    assert msgpack.unpackb(saved.data)["format"] == 3
    assert len(h.model.directory.wallets) == CHUNK and h.model.directory.recommended
    assert len(saved.blobs) == 2  # the page of 40 and the recommended picks
    assert all(digest_of(blob) == digest for digest, blob in saved.blobs.items())
    assert sorted(blob_refs(saved.data)) == sorted(saved.blobs)
    assert len(saved.data) < len(whole) // 2  # what a save writes once its blobs are stored
    restored, restored_timers = load_bytes(saved.data, dict(saved.blobs))
    assert restored.model == h.model
    assert (restored.intents, restored.version, restored.out_seq) == (
        h.session.intents, h.session.version, h.session.out_seq)
    assert restored_timers == timers
    assert blob_refs(whole) == []  # a self-contained save (format 2) refers to nothing


def test_rule_the_same_directory_page_is_the_same_blob_in_another_session() -> None:
    mine = session_to_save(all_wallets().session, (), ModelPacker(shared=True))
    theirs = session_to_save(all_wallets(session_id="session-2").session, (), ModelPacker(shared=True))
    assert set(mine.blobs) == set(theirs.blobs)
    assert mine.data != theirs.data  # each session's own data stays its own
    other_filters = session_to_save(all_wallets({"excludeWalletIds": ["rainbow"]}).session, (),
                                    ModelPacker(shared=True))
    assert _page_blob(dict(other_filters.blobs)) != _page_blob(dict(mine.blobs))


def test_rule_an_unchanged_directory_is_not_packed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    hashed: list[int] = []

    def counted(data: bytes) -> str:
        hashed.append(len(data))
        return digest_of(data)

    monkeypatch.setattr(shared, "digest_of", counted)
    h = all_wallets()
    packer = ModelPacker(shared=True)
    first = session_to_save(h.session, (), packer)
    assert len(hashed) == 2
    assert h.host("close") == "ok"  # the directory slice is the same object
    packed = packer.packed
    second = session_to_save(h.session, (), packer)
    assert second.blobs is first.blobs  # the same mapping
    assert 0 < packer.packed - packed < 5  # only the slices closing changed
    assert h.host("open", view="AllWallets") == "ok"
    h.type("ra")  # the directory slice changes; its lists do not
    third = session_to_save(h.session, (), packer)
    assert len(hashed) == 2  # their chunks were neither dumped nor hashed again
    assert third.blobs is first.blobs
    assert load_bytes(third.data, dict(third.blobs))[0].model == h.model


def test_rule_a_missing_blob_is_a_typed_error_or_a_list_fetched_again() -> None:
    h = all_wallets()
    saved = session_to_save(h.session, (), ModelPacker(shared=True))
    page = _page_blob(dict(saved.blobs))
    with pytest.raises(BlobsNeeded) as needed:  # typed: the caller did not load them
        load_bytes(saved.data)
    assert sorted(needed.value.digests) == sorted(saved.blobs)
    kept = {d: b for d, b in saved.blobs.items() if d != page}
    restored, _ = load_bytes(saved.data, kept)
    directory = restored.model.directory
    assert (directory.wallets, directory.page, directory.pages) == ((), 0, "idle")
    assert directory.recommended == h.model.directory.recommended
    assert restored.model.router == h.model.router
    # a blob altered in the store counts as missing, never as data
    altered = {d: (b + b"\xc0" if d == page else b) for d, b in saved.blobs.items()}
    assert load_bytes(saved.data, altered)[0].model.directory.pages == "idle"
    # resumed: All Wallets is in sight, so its first page is asked for again and drawn
    again = DirHarness(model=restored.model, session_id=h.session.id)
    again.rejoin(last=None)
    assert [c.key for c in again.directory_calls()] == ["page:1"]
    again.settle_directory()
    assert again.model.directory.wallets == h.model.directory.wallets
    assert again.names() == h.names()


def test_rule_a_slice_equal_to_its_default_is_saved_as_nil() -> None:
    """A format-3 save writes nil for every slice still at its default (the model's slices are
    shared default instances, not default factories) and loads them back equal."""
    h = all_wallets()
    saved = session_to_save(h.session, (), ModelPacker(shared=True))
    model_data = msgpack.unpackb(msgpack.unpackb(saved.data)["model"], raw=False,
                                 ext_hook=lambda code, data: None)
    assert h.model.swap == type(h.model.swap)() and model_data["swap"] is None
    assert h.model.send == type(h.model.send)() and model_data["send"] is None
    assert model_data["directory"] is not None  # changed from its default: saved
    assert load_bytes(saved.data, dict(saved.blobs))[0].model == h.model
